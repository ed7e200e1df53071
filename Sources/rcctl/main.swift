await RCCtl.runAndExit()
