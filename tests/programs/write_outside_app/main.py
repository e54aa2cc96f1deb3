for path in [
    "/usr/surge-escape",
    "/etc/surge-escape",
    "/surge-escape",
    "/opt/surge-runner/escape",
    "/root/surge-escape",
]:
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as error:
        print("refused", path, type(error).__name__)
