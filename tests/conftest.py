"""Session fixtures for every test directory: the real httpd (``httpd``) and the local
Kubernetes control plane (``cluster``); see tests/apache_fixture.py and tests/cluster_fixture.py."""

pytest_plugins = ["apache_fixture", "cluster_fixture"]
