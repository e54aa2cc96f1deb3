#lang racket/base
(let loop ([hog (list)])
  (loop (cons (make-bytes (* 16 1024 1024) 1) hog)))  ; 16 MiB at a time
