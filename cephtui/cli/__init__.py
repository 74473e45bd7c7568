"""The command line: the TUI and the headless commands (cephtui/cli/table.py lists them, one module each).

Nothing is imported here: the launcher reads the table before it knows whether librados can be imported.
`cephtui.cli.dispatch.main` is the command line's entry (cephtui/launcher.py calls it).
"""
