package main

var count uint64

func main() {
	for {
		count++
	}
}
