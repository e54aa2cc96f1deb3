package main

import "syscall"

// The raw system call: the runtime never learns of the children, and each child (one thread, in this
// loop) forks on; a refused fork returns an error that is ignored, as the Python case catches its OSError.
func main() {
	for {
		syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0)
	}
}
