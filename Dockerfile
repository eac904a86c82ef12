# syntax=docker/dockerfile:1
# httpd24: the CLI, and `httpd24 operator` (admission webhooks + operator), with the official httpd 2.4
# inside for the operator's configtest gate (real `httpd -t` before any rollout).
#
#   docker build -t httpd24 .
#   docker run --rm -v "$PWD:/work:ro" httpd24 lint /work/site.conf      # the CLI
#   docker run --rm httpd24 operator --help                              # what the Helm chart runs
#
# Stages: `wheel` builds the wheel (build tools stay there); `venv` installs it with its dependencies
# into /opt/httpd24 on the same base as the final image (so the venv's python3 is the one there);
# the final stage gets python3 and the venv, nothing else: no pip, no compiler, no apt lists.
# Probes: GET :8080/healthz (liveness), :8080/readyz (readiness: webhooks listening, indexes filled);
# the chart uses those; the HEALTHCHECK below is for `docker run ... operator`.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
# Pinned to a release tag; bump it with the Debian release of the final stage in mind (bookworm: python3.11).
ARG HTTPD_IMAGE=httpd:2.4.65-bookworm

FROM ${PYTHON_IMAGE} AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY operator ./operator
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${HTTPD_IMAGE} AS venv
# Debian's packages are not pinned by version: the base tag pins the release, and an exact pin would
# break the build as soon as Debian publishes a security update (the old version leaves the mirror).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/*
COPY --from=wheel /wheels /wheels
# The wheel was built from this very source; its dependencies are the ranges in pyproject.toml.
RUN python3 -m venv /opt/httpd24 \
 && /opt/httpd24/bin/pip install --no-cache-dir "$(find /wheels -name 'httpd24-*.whl')[operator]" \
 && /opt/httpd24/bin/pip uninstall -y -q pip setuptools

FROM ${HTTPD_IMAGE}
LABEL org.opencontainers.image.title="httpd24" \
      org.opencontainers.image.description="Lint and migrate Apache httpd 2.2 configurations to 2.4; Kubernetes admission webhooks and operator" \
      org.opencontainers.image.licenses="Apache-2.0"
# See the venv stage for why Debian packages are not pinned.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 httpd24 \
 && useradd --system --uid 10001 --gid httpd24 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin httpd24
COPY --from=venv /opt/httpd24 /opt/httpd24
ENV PATH=/opt/httpd24/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HTTPD24_HTTPD=/usr/local/apache2/bin/httpd:/usr/local/apache2/modules
# Smoke test at build time (tests/packaging/test_wheel.py runs the same commands in a fresh venv).
RUN httpd24 --version && httpd24 operator --help > /dev/null && httpd -v
USER 10001:10001
WORKDIR /tmp
EXPOSE 9443 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
ENTRYPOINT ["httpd24"]
CMD ["--help"]
