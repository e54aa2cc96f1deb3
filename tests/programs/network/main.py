import socket

for host, port in [("1.1.1.1", 53), ("127.0.0.1", 22)]:
    try:
        socket.create_connection((host, port), timeout=1).close()
        print("CONNECTED", host)
    except OSError as error:
        print("no network", host, type(error).__name__)
