/// Templates the tests publish.
enum Templates {
    static let basic = """
    {"conditions":[{"name":"ios","expression":"device.os == 'ios'","tagColor":"BLUE"},
                   {"name":"pro","expression":"app.customSignal['plan'] == 'pro'"}],
     "parameters":{"welcome":{"defaultValue":{"value":"hello"},
                              "conditionalValues":{"ios":{"value":"hi ios"},"pro":{"value":"hi pro"}},"valueType":"STRING"},
                   "limit":{"defaultValue":{"value":"10"},"valueType":"NUMBER"},
                   "local_only":{"defaultValue":{"useInAppDefault":true},"valueType":"STRING"}},
     "version":{"description":"first"}}
    """

    static func single(_ value: String) -> String {
        "{\"parameters\":{\"key\":{\"defaultValue\":{\"value\":\"\(value)\"},\"valueType\":\"STRING\"}}}"
    }
}
