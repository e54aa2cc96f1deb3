line=$(printf 'spam %.0s' {1..100})
while :; do
    echo "$line"
done
