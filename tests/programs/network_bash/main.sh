for target in 1.1.1.1/53 127.0.0.1/22; do
    if (exec 3<>"/dev/tcp/$target") 2>/dev/null; then
        echo "CONNECTED ${target%/*}"
    else
        echo "no network ${target%/*}"
    fi
done
