hog=x
while :; do
    hog=$hog$hog  # doubles each time
done
