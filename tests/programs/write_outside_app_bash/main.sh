for path in /usr/surge-escape /etc/surge-escape /surge-escape /opt/surge-runner/escape /root/surge-escape; do
    if (echo x >"$path") 2>/dev/null; then
        echo "WROTE $path"
    else
        echo "refused $path"
    fi
done
