"""Kubernetes adapters: admission webhooks, the operator, CRD models, metrics.

The only package that imports kopf / kubernetes / aiohttp. The pure parts
(:mod:`.review`, :mod:`.review_policy`, :mod:`.webhooks`, :mod:`.models_policy`)
import none of them, so they are unit-tested without a cluster; the kopf glue
lives in :mod:`.admission` and :mod:`.main`. Nothing is imported here, so
``import httpd24.k8s.review`` stays light.
"""
