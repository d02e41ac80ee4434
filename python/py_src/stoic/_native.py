"""The native module's one hand-over: ``stoic/__init__.py`` imports this
first, and it gives ``stoic._stoic`` the exception classes the binding
raises (the binding never imports the package back).
``stoic._stoic.listening`` goes the other way: the binding sets it when a
policy first gets a listener."""

from . import _errors
from ._stoic import register_host

register_host(
    config_error=_errors.ConfigError,
    config_problem=_errors.ConfigProblem,
    input_error=_errors.InputError,
)
