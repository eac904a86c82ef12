from apache_fixture import httpd  # noqa: F401  (the session fixture for every test here)
