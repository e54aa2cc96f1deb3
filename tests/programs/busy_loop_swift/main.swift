var count: UInt64 = 0
while true {
    count &+= 1
}
