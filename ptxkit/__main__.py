from ptxkit.cli import entry

entry()
