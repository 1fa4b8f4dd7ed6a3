"""The language server (``trainlint server``): diagnostics as you type, quick fixes, rule docs
on hover. :mod:`linter.server.engine` lints (no protocol), :mod:`linter.server.convert` speaks
the protocol's positions and shapes, :mod:`linter.server.app` wires them to pygls."""
