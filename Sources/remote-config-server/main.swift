print("remote-config-server")
