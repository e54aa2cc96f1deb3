import subprocess

# A nested user namespace would give the program every capability inside it (and the kernel's
# namespace-only code paths): `unshare -U` must fail.
done = subprocess.run(["unshare", "-U", "true"], capture_output=True, text=True)
print("unshare -U", "refused" if done.returncode else "allowed", done.stderr.strip().split(": ")[-1])
