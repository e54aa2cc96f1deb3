import os
import shutil

shutil.rmtree("/app", ignore_errors=True)
os.chdir("/")
print("deleted", os.path.exists("/app/main.py"))
