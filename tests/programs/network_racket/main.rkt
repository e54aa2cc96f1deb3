#lang racket/base
(require racket/tcp)

(for ([target '(("1.1.1.1" 53) ("127.0.0.1" 22))])
  (define host (car target))
  (with-handlers ([exn:fail:network? (lambda (e) (printf "no network ~a\n" host))])
    (define-values (in out) (tcp-connect host (cadr target)))
    (close-output-port out)
    (printf "CONNECTED ~a\n" host)))
