"""The 2.2 -> 2.4 rule catalogue: one module per rule (or per tight family of rules).

Each module defines :class:`httpd24.engine.Rule` subclasses decorated with
:func:`httpd24.engine.register`; the registry imports every module here.
"""
