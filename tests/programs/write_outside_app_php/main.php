<?php
foreach (["/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/opt/surge-runner/escape", "/root/surge-escape"] as $path) {
    if (@file_put_contents($path, "x") !== false) {
        echo "WROTE $path\n";
    } else {
        echo "refused $path\n";
    }
}
