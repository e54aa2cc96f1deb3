package main

import (
	"fmt"
	"strings"
)

func main() {
	line := strings.Repeat("spam ", 100)
	for {
		fmt.Println(line)
	}
}
