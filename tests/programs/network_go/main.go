package main

import (
	"fmt"
	"net"
	"time"
)

func main() {
	for _, address := range []string{"1.1.1.1:53", "127.0.0.1:22"} {
		connection, err := net.DialTimeout("tcp", address, time.Second)
		if err != nil {
			fmt.Println("no network", address, err)
			continue
		}
		connection.Close()
		fmt.Println("CONNECTED", address)
	}
}
