"""httpd24: lint and migrate Apache httpd 2.2 configurations to 2.4.

The public surface is small: :mod:`httpd24.config` (the lossless configuration
engine) and :mod:`httpd24.api` (lint, migrate, module requirements). Everything
that talks to Kubernetes lives in :mod:`httpd24.k8s` and is optional.
"""

__version__ = "0.1.0"
