# The session-scoped `cluster` fixture lives in tests/cluster_fixture.py so
# that other test directories can re-export it the same way.
from cluster_fixture import cluster  # noqa: F401
