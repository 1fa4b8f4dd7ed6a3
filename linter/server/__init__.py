"""The language server (``trainlint server``): diagnostics as you type, quick fixes, rule docs
on hover. :mod:`linter.server.engine` lints (no protocol), :mod:`linter.server.convert` speaks
the protocol's positions and shapes, :mod:`linter.server.app` holds the server's state and
schedules and publishes lints, :mod:`linter.server.handlers` takes the client's notifications and
:mod:`linter.server.actions` answers hover and code-action requests."""
