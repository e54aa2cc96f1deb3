import sys

sys.stdout.buffer.write(b"ok \xff\xfe\x00 bytes\n")
sys.stderr.buffer.write(b"\xc3\x28\n")
