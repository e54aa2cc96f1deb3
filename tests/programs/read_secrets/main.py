import os

for path in ["/etc/shadow", "/etc/gshadow", "/root"]:
    try:
        if os.path.isdir(path):
            print(path, "LISTED", os.listdir(path))
        else:
            data = open(path).read()
            print(path, "READ" if data else "empty")
    except OSError as error:
        print(path, "refused", type(error).__name__)
