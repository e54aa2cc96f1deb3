
#lang racket

(define (f values)
  (list (map (lambda (v) (* 2 v)) values) (length values)))
(require rackunit)

(define (test-humaneval) 

  (let (( candidate f))
    (check-within (candidate (list 1 2 3)) (list (list 2 4 6) 3) 0.001)
))

(test-humaneval)
