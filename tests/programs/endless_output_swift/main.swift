let line = String(repeating: "spam ", count: 100)
while true {
    print(line)
}
