import subprocess

# A grandchild in its own session that outlives us: it must be dead once the phase is over.
subprocess.Popen(["sleep", "3217"], start_new_session=True)
print("parent done")
