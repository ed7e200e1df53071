import ConfigServer

ServeCommand.runFromCommandLine()
