"""2.2 access control (Order/Allow/Deny/Satisfy/Require and their inheritance) and its translation to pure 2.4.

* :func:`decide_22` -- the status httpd 2.2 answers a :class:`Request` with (the model);
  :func:`decide_compat` / :func:`decide_24` -- the same on 2.4 with / without mod_access_compat.
* :func:`normalize_22` -- 2.2 inheritance written out, the reference for 2.4 + mod_access_compat.
* :func:`translate` -- pure 2.4 (no mod_access_compat) with the same answers.
* The rules HT501-HT507 (:mod:`httpd24.access.rules`); :mod:`.authz22`, what several Require lines meant on 2.2.

Pure: no I/O.
"""

from .apply import TranslationError, normalize_22, normalize_notes, translate
from .hosts import AddressError, Entry, parse_entry, parse_from
from .model import Model, Request, build, decide_22, decide_24, decide_compat

__all__ = [
    "AddressError", "Entry", "Model", "Request", "TranslationError", "build", "decide_22", "decide_24",
    "decide_compat", "normalize_22", "normalize_notes", "parse_entry", "parse_from", "translate",
]
