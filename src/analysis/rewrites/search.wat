;; The Fusion rewrites' two searches in WebAssembly, each the same as its JavaScript, so both give the same answer
;; for every input (test/search-engines.test.ts). A diff runs each once, cold: as JavaScript they run in the
;; interpreter until V8 has compiled them, and that first run is most of their cost; WebAssembly is compiled first.
;;
;; 1. The alignment search of myers.ts (compare, bisect and its two rounds): the same work list, the same middle
;;    snakes, the same change flags. Memory (set by searchEngine.ts, which grows it to fit): A at $a and B at $b
;;    (i32 per token), the change flags of each at $ca and $cb (u8 per token, at index + 1, with the zero sentinels
;;    of myers.ts), the diagonals V1 at $v1 and V2 at $v2 (i32 each, room for 2 · ((n + m + 1) >> 1) + 3), the work
;;    list at $stack (4 i32 per pending range, room for n + m + 2 ranges).
;;    align(n, m, capRounds) → 1 when the flags are written, 0 when the first search needs more rounds than
;;    `capRounds` (-1: no cap), as compare() returns false for a cap reached.
;;
;; 2. The near occurrences of match.ts (nearOccurrences, with endDistances, bestStart and editDistance): the same
;;    distances, the same sites. Memory (layoutNear): the text at $a, the chain at $b, each end's distance at $v1,
;;    the two columns of cutOffColumns at $v2 (m + 1 i32 each), the chain's masks at $ca (u32 per token id from
;;    `lo`: bitParallel's table), the rows of bestStart and editDistance at $row1 and $row2 (n + m + 2 i32 each),
;;    the sites found at $stack (start, end, edits: i32 each, room for n). near(n, m, k, lo, span) → the number of
;;    sites, for a chain of m >= 1 tokens (of at most 32, a span of ids of at most 65,536) and a whole k >= 0.
;;
;; 3. The tables of regroup.ts (realignTables: the fewest edits, then the fewest hunks, of a window of two aligned
;;    steps), cell by cell the same. regroup(a, b, keep, edit, n, m, K): the window's tokens of A at `a` and of B at
;;    `b` (i32 each), its tables written at `keep` and `edit` ((n + 1) · (m + 1) i32 each).
;;
;; Memory is read and written in place, with no function of its own for a token or a diagonal: the baseline
;; compiler that runs a diff's searches (V8's Liftoff; they run once, before a faster tier is ready) does not inline
;; calls, and a call per token compared was most of the alignment's time (18 ms of the bench pair's 20, 5 without).
;;
;; Over 400 lines: one module for the searches and the tables, so that a run compiles one and keeps one memory.
(module
  (memory (export "memory") 1)
  (global $a (mut i32) (i32.const 0))
  (global $b (mut i32) (i32.const 0))
  (global $ca (mut i32) (i32.const 0))
  (global $cb (mut i32) (i32.const 0))
  (global $v1 (mut i32) (i32.const 0))
  (global $v2 (mut i32) (i32.const 0))
  (global $stack (mut i32) (i32.const 0))
  ;; The rounds' state of one bisect (SEARCH in myers.ts): where each direction's diagonals start and end, the meet.
  (global $k1start (mut i32) (i32.const 0))
  (global $k1end (mut i32) (i32.const 0))
  (global $k2start (mut i32) (i32.const 0))
  (global $k2end (mut i32) (i32.const 0))
  (global $meetX (mut i32) (i32.const 0))
  (global $meetY (mut i32) (i32.const 0))

  (func (export "layout") (param $a i32) (param $b i32) (param $ca i32) (param $cb i32) (param $v1 i32) (param $v2 i32)
    (param $stack i32)
    (global.set $a (local.get $a))
    (global.set $b (local.get $b))
    (global.set $ca (local.get $ca))
    (global.set $cb (local.get $cb))
    (global.set $v1 (local.get $v1))
    (global.set $v2 (local.get $v2))
    (global.set $stack (local.get $stack)))

  ;; Flags [from, to) of A (or of B), as changed: index i is flag i + 1.
  (func $mark (param $flags i32) (param $from i32) (param $to i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $from) (local.get $to)))
        (i32.store8 (i32.add (local.get $flags) (i32.add (local.get $from) (i32.const 1))) (i32.const 1))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $next))))

  ;; forwardRound of myers.ts: 1 when the paths met (at $meetX, $meetY).
  (func $forward (param $al i32) (param $bl i32) (param $n i32) (param $m i32) (param $d i32) (param $offset i32)
    (param $length i32) (param $delta i32) (param $front i32) (result i32) (local $k1 i32) (local $k1o i32)
    (local $x1 i32) (local $y1 i32) (local $k2o i32)
    (local.set $k1 (i32.add (i32.sub (i32.const 0) (local.get $d)) (global.get $k1start)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $k1) (i32.sub (local.get $d) (global.get $k1end))))
        (local.set $k1o (i32.add (local.get $offset) (local.get $k1)))
        (if
          (i32.or (i32.eq (local.get $k1) (i32.sub (i32.const 0) (local.get $d)))
            (i32.and (i32.ne (local.get $k1) (local.get $d))
              (i32.lt_s
                (i32.load (i32.add (global.get $v1) (i32.shl (i32.sub (local.get $k1o) (i32.const 1)) (i32.const 2))))
                (i32.load (i32.add (global.get $v1) (i32.shl (i32.add (local.get $k1o) (i32.const 1)) (i32.const 2)))))))
          (then
            (local.set $x1
              (i32.load (i32.add (global.get $v1) (i32.shl (i32.add (local.get $k1o) (i32.const 1)) (i32.const 2))))))
          (else
            (local.set $x1
              (i32.add
                (i32.load (i32.add (global.get $v1) (i32.shl (i32.sub (local.get $k1o) (i32.const 1)) (i32.const 2))))
                (i32.const 1)))))
        (local.set $y1 (i32.sub (local.get $x1) (local.get $k1)))
        (block $snake
          (loop $slide
            (br_if $snake (i32.ge_s (local.get $x1) (local.get $n)))
            (br_if $snake (i32.ge_s (local.get $y1) (local.get $m)))
            (br_if $snake
              (i32.ne
                (i32.load (i32.add (global.get $a) (i32.shl (i32.add (local.get $al) (local.get $x1)) (i32.const 2))))
                (i32.load (i32.add (global.get $b) (i32.shl (i32.add (local.get $bl) (local.get $y1)) (i32.const 2))))))
            (local.set $x1 (i32.add (local.get $x1) (i32.const 1)))
            (local.set $y1 (i32.add (local.get $y1) (i32.const 1)))
            (br $slide)))
        (i32.store (i32.add (global.get $v1) (i32.shl (local.get $k1o) (i32.const 2))) (local.get $x1))
        (if (i32.gt_s (local.get $x1) (local.get $n))
          (then (global.set $k1end (i32.add (global.get $k1end) (i32.const 2))))
          (else
            (if (i32.gt_s (local.get $y1) (local.get $m))
              (then (global.set $k1start (i32.add (global.get $k1start) (i32.const 2))))
              (else
                (if (local.get $front)
                  (then
                    (local.set $k2o (i32.sub (i32.add (local.get $offset) (local.get $delta)) (local.get $k1)))
                    (if
                      (i32.and (i32.ge_s (local.get $k2o) (i32.const 0)) (i32.lt_s (local.get $k2o) (local.get $length)))
                      (then
                        (if
                          (i32.ne (i32.load (i32.add (global.get $v2) (i32.shl (local.get $k2o) (i32.const 2))))
                            (i32.const -1))
                          (then
                            (if
                              (i32.ge_s (local.get $x1)
                                (i32.sub (local.get $n)
                                  (i32.load (i32.add (global.get $v2) (i32.shl (local.get $k2o) (i32.const 2))))))
                              (then
                                (global.set $meetX (local.get $x1))
                                (global.set $meetY (local.get $y1))
                                (return (i32.const 1))))))))))))))
        (local.set $k1 (i32.add (local.get $k1) (i32.const 2)))
        (br $next)))
    (i32.const 0))

  ;; backwardRound of myers.ts: 1 when the paths met (at $meetX, $meetY).
  (func $backward (param $ah i32) (param $bh i32) (param $n i32) (param $m i32) (param $d i32) (param $offset i32)
    (param $length i32) (param $delta i32) (param $front i32) (result i32) (local $k2 i32) (local $k2o i32)
    (local $x2 i32) (local $y2 i32) (local $k1o i32) (local $x1 i32)
    (local.set $k2 (i32.add (i32.sub (i32.const 0) (local.get $d)) (global.get $k2start)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $k2) (i32.sub (local.get $d) (global.get $k2end))))
        (local.set $k2o (i32.add (local.get $offset) (local.get $k2)))
        (if
          (i32.or (i32.eq (local.get $k2) (i32.sub (i32.const 0) (local.get $d)))
            (i32.and (i32.ne (local.get $k2) (local.get $d))
              (i32.lt_s
                (i32.load (i32.add (global.get $v2) (i32.shl (i32.sub (local.get $k2o) (i32.const 1)) (i32.const 2))))
                (i32.load (i32.add (global.get $v2) (i32.shl (i32.add (local.get $k2o) (i32.const 1)) (i32.const 2)))))))
          (then
            (local.set $x2
              (i32.load (i32.add (global.get $v2) (i32.shl (i32.add (local.get $k2o) (i32.const 1)) (i32.const 2))))))
          (else
            (local.set $x2
              (i32.add
                (i32.load (i32.add (global.get $v2) (i32.shl (i32.sub (local.get $k2o) (i32.const 1)) (i32.const 2))))
                (i32.const 1)))))
        (local.set $y2 (i32.sub (local.get $x2) (local.get $k2)))
        (block $snake
          (loop $slide
            (br_if $snake (i32.ge_s (local.get $x2) (local.get $n)))
            (br_if $snake (i32.ge_s (local.get $y2) (local.get $m)))
            (br_if $snake
              (i32.ne
                (i32.load
                  (i32.add (global.get $a)
                    (i32.shl (i32.sub (i32.sub (local.get $ah) (local.get $x2)) (i32.const 1)) (i32.const 2))))
                (i32.load
                  (i32.add (global.get $b)
                    (i32.shl (i32.sub (i32.sub (local.get $bh) (local.get $y2)) (i32.const 1)) (i32.const 2))))))
            (local.set $x2 (i32.add (local.get $x2) (i32.const 1)))
            (local.set $y2 (i32.add (local.get $y2) (i32.const 1)))
            (br $slide)))
        (i32.store (i32.add (global.get $v2) (i32.shl (local.get $k2o) (i32.const 2))) (local.get $x2))
        (if (i32.gt_s (local.get $x2) (local.get $n))
          (then (global.set $k2end (i32.add (global.get $k2end) (i32.const 2))))
          (else
            (if (i32.gt_s (local.get $y2) (local.get $m))
              (then (global.set $k2start (i32.add (global.get $k2start) (i32.const 2))))
              (else
                (if (i32.eqz (local.get $front))
                  (then
                    (local.set $k1o (i32.sub (i32.add (local.get $offset) (local.get $delta)) (local.get $k2)))
                    (if
                      (i32.and (i32.ge_s (local.get $k1o) (i32.const 0)) (i32.lt_s (local.get $k1o) (local.get $length)))
                      (then
                        (if
                          (i32.ne (i32.load (i32.add (global.get $v1) (i32.shl (local.get $k1o) (i32.const 2))))
                            (i32.const -1))
                          (then
                            (local.set $x1
                              (i32.load (i32.add (global.get $v1) (i32.shl (local.get $k1o) (i32.const 2)))))
                            (if (i32.ge_s (local.get $x1) (i32.sub (local.get $n) (local.get $x2)))
                              (then
                                (global.set $meetX (local.get $x1))
                                (global.set $meetY
                                  (i32.sub (i32.add (local.get $offset) (local.get $x1)) (local.get $k1o)))
                                (return (i32.const 1))))))))))))))
        (local.set $k2 (i32.add (local.get $k2) (i32.const 2)))
        (br $next)))
    (i32.const 0))

  ;; bisect of myers.ts: 1 FOUND (at $meetX, $meetY), 0 DISJOINT, -1 CAPPED. $cap: the most rounds (-1: none).
  (func $bisect (param $al i32) (param $ah i32) (param $bl i32) (param $bh i32) (param $cap i32) (result i32)
    (local $n i32) (local $m i32) (local $maxD i32) (local $rounds i32) (local $offset i32) (local $length i32)
    (local $delta i32) (local $front i32) (local $d i32) (local $k i32)
    (local.set $n (i32.sub (local.get $ah) (local.get $al)))
    (local.set $m (i32.sub (local.get $bh) (local.get $bl)))
    (local.set $maxD (i32.shr_s (i32.add (i32.add (local.get $n) (local.get $m)) (i32.const 1)) (i32.const 1)))
    (local.set $rounds (local.get $maxD))
    (if (i32.and (i32.ge_s (local.get $cap) (i32.const 0)) (i32.lt_s (local.get $cap) (local.get $maxD)))
      (then (local.set $rounds (local.get $cap))))
    (local.set $offset (i32.add (local.get $rounds) (i32.const 1)))
    (local.set $length (i32.add (i32.shl (local.get $rounds) (i32.const 1)) (i32.const 3)))
    (local.set $k (i32.const 0))
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_s (local.get $k) (local.get $length)))
        (i32.store (i32.add (global.get $v1) (i32.shl (local.get $k) (i32.const 2))) (i32.const -1))
        (i32.store (i32.add (global.get $v2) (i32.shl (local.get $k) (i32.const 2))) (i32.const -1))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $fill)))
    (i32.store (i32.add (global.get $v1) (i32.shl (i32.add (local.get $offset) (i32.const 1)) (i32.const 2)))
      (i32.const 0))
    (i32.store (i32.add (global.get $v2) (i32.shl (i32.add (local.get $offset) (i32.const 1)) (i32.const 2)))
      (i32.const 0))
    (local.set $delta (i32.sub (local.get $n) (local.get $m)))
    (local.set $front (i32.and (local.get $delta) (i32.const 1)))
    (global.set $k1start (i32.const 0))
    (global.set $k1end (i32.const 0))
    (global.set $k2start (i32.const 0))
    (global.set $k2end (i32.const 0))
    (local.set $d (i32.const 0))
    (block $searched
      (loop $round
        (br_if $searched (i32.ge_s (local.get $d) (local.get $rounds)))
        (if
          (call $forward (local.get $al) (local.get $bl) (local.get $n) (local.get $m) (local.get $d)
            (local.get $offset)
            (local.get $length)
            (local.get $delta)
            (local.get $front))
          (then (return (i32.const 1))))
        (if
          (call $backward (local.get $ah) (local.get $bh) (local.get $n) (local.get $m) (local.get $d)
            (local.get $offset)
            (local.get $length)
            (local.get $delta)
            (local.get $front))
          (then (return (i32.const 1))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $round)))
    (if (result i32) (i32.lt_s (local.get $rounds) (local.get $maxD)) (then (i32.const -1)) (else (i32.const 0))))

  ;; compare of myers.ts over all of A and B: the work list of ranges, each trimmed of its common ends, then
  ;; marked whole or split at its middle snake. Only the first search is capped.
  (func (export "align") (param $n i32) (param $m i32) (param $cap i32) (result i32) (local $sp i32) (local $al i32)
    (local $ah i32) (local $bl i32) (local $bh i32) (local $first i32) (local $found i32) (local $x i32) (local $y i32)
    (i32.store (global.get $stack) (i32.const 0))
    (i32.store offset=4 (global.get $stack) (local.get $n))
    (i32.store offset=8 (global.get $stack) (i32.const 0))
    (i32.store offset=12 (global.get $stack) (local.get $m))
    (local.set $sp (i32.const 1))
    (local.set $first (i32.const 1))
    (block $empty
      (loop $next
        (br_if $empty (i32.eqz (local.get $sp)))
        (local.set $sp (i32.sub (local.get $sp) (i32.const 1)))
        (local.set $x (i32.add (global.get $stack) (i32.shl (local.get $sp) (i32.const 4))))
        (local.set $al (i32.load (local.get $x)))
        (local.set $ah (i32.load offset=4 (local.get $x)))
        (local.set $bl (i32.load offset=8 (local.get $x)))
        (local.set $bh (i32.load offset=12 (local.get $x)))
        (block $head
          (loop $trim
            (br_if $head (i32.ge_s (local.get $al) (local.get $ah)))
            (br_if $head (i32.ge_s (local.get $bl) (local.get $bh)))
            (br_if $head
              (i32.ne (i32.load (i32.add (global.get $a) (i32.shl (local.get $al) (i32.const 2))))
                (i32.load (i32.add (global.get $b) (i32.shl (local.get $bl) (i32.const 2))))))
            (local.set $al (i32.add (local.get $al) (i32.const 1)))
            (local.set $bl (i32.add (local.get $bl) (i32.const 1)))
            (br $trim)))
        (block $tail
          (loop $trim
            (br_if $tail (i32.ge_s (local.get $al) (local.get $ah)))
            (br_if $tail (i32.ge_s (local.get $bl) (local.get $bh)))
            (br_if $tail
              (i32.ne
                (i32.load (i32.add (global.get $a) (i32.shl (i32.sub (local.get $ah) (i32.const 1)) (i32.const 2))))
                (i32.load (i32.add (global.get $b) (i32.shl (i32.sub (local.get $bh) (i32.const 1)) (i32.const 2))))))
            (local.set $ah (i32.sub (local.get $ah) (i32.const 1)))
            (local.set $bh (i32.sub (local.get $bh) (i32.const 1)))
            (br $trim)))
        (if (i32.eq (local.get $al) (local.get $ah))
          (then
            (call $mark (global.get $cb) (local.get $bl) (local.get $bh))
            (local.set $first (i32.const 0))
            (br $next)))
        (if (i32.eq (local.get $bl) (local.get $bh))
          (then
            (call $mark (global.get $ca) (local.get $al) (local.get $ah))
            (local.set $first (i32.const 0))
            (br $next)))
        (local.set $found
          (call $bisect (local.get $al) (local.get $ah) (local.get $bl) (local.get $bh)
            (select (local.get $cap) (i32.const -1) (local.get $first))))
        (local.set $first (i32.const 0))
        (if (i32.lt_s (local.get $found) (i32.const 0)) (then (return (i32.const 0))))
        (if (i32.eqz (local.get $found))
          (then
            (call $mark (global.get $ca) (local.get $al) (local.get $ah))
            (call $mark (global.get $cb) (local.get $bl) (local.get $bh))
            (br $next)))
        ;; Split at the meet: the right part pushed first, so the left part is taken next (as in myers.ts).
        (local.set $x (i32.add (local.get $al) (global.get $meetX)))
        (local.set $y (i32.add (local.get $bl) (global.get $meetY)))
        (call $push (local.get $sp) (local.get $x) (local.get $ah) (local.get $y) (local.get $bh))
        (call $push (i32.add (local.get $sp) (i32.const 1)) (local.get $al) (local.get $x) (local.get $bl)
          (local.get $y))
        (local.set $sp (i32.add (local.get $sp) (i32.const 2)))
        (br $next)))
    (i32.const 1))

  ;; Range k of the work list.
  (func $push (param $k i32) (param $al i32) (param $ah i32) (param $bl i32) (param $bh i32)
    (local $p i32)
    (local.set $p (i32.add (global.get $stack) (i32.shl (local.get $k) (i32.const 4))))
    (i32.store (local.get $p) (local.get $al))
    (i32.store offset=4 (local.get $p) (local.get $ah))
    (i32.store offset=8 (local.get $p) (local.get $bl))
    (i32.store offset=12 (local.get $p) (local.get $bh)))

  ;; ---- 2. Near occurrences (match.ts) ----
  ;; Memory of a call: text $a (n), chain $b (m), dist $v1 (n), masks or a DP row $v2 (n, or m + 1 twice), mask
  ;; table $ca (span u32), two rows $row1 and $row2 (n + 2 each: bestStart's and editDistance's), sites $stack.
  (global $row1 (mut i32) (i32.const 0))
  (global $row2 (mut i32) (i32.const 0))

  (func (export "layoutNear") (param $text i32) (param $chain i32) (param $dist i32) (param $masks i32) (param $table i32)
        (param $row1 i32) (param $row2 i32) (param $sites i32)
    (global.set $a (local.get $text))
    (global.set $b (local.get $chain))
    (global.set $v1 (local.get $dist))
    (global.set $v2 (local.get $masks))
    (global.set $ca (local.get $table))
    (global.set $row1 (local.get $row1))
    (global.set $row2 (local.get $row2))
    (global.set $stack (local.get $sites)))

  (func $min3 (param $x i32) (param $y i32) (param $z i32) (result i32)
    (if (i32.lt_s (local.get $y) (local.get $x)) (then (local.set $x (local.get $y))))
    (if (i32.lt_s (local.get $z) (local.get $x)) (then (local.set $x (local.get $z))))
    (local.get $x))

  ;; bitParallel of match.ts (a chain of 1..32 tokens): the masks first (textMasks, by the table from `lo`).
  (func $bitParallel (param $n i32) (param $m i32) (param $k i32) (param $lo i32) (param $span i32) (local $i i32)
    (local $j i32) (local $t i32) (local $p i32) (local $eq i32) (local $xv i32) (local $xh i32) (local $ph i32)
    (local $mh i32) (local $pv i32) (local $mv i32) (local $score i32) (local $high i32) (local $hi i32)
    ;; The table: zeros, then a bit per chain position.
    (local.set $i (i32.const 0))
    (block $z
      (loop $zl
        (br_if $z (i32.ge_s (local.get $i) (local.get $span)))
        (i32.store (i32.add (global.get $ca) (i32.shl (local.get $i) (i32.const 2))) (i32.const 0))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $zl)))
    (local.set $i (i32.const 0))
    (block $c
      (loop $cl
        (br_if $c (i32.ge_s (local.get $i) (local.get $m)))
        (local.set $p
          (i32.add (global.get $ca)
            (i32.shl
              (i32.sub (i32.load (i32.add (global.get $b) (i32.shl (local.get $i) (i32.const 2)))) (local.get $lo))
              (i32.const 2))))
        (i32.store (local.get $p) (i32.or (i32.load (local.get $p)) (i32.shl (i32.const 1) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $cl)))
    (local.set $hi (i32.sub (i32.add (local.get $lo) (local.get $span)) (i32.const 1)))
    (local.set $high (i32.shl (i32.const 1) (i32.sub (local.get $m) (i32.const 1))))
    (local.set $pv (i32.const -1))
    (local.set $mv (i32.const 0))
    (local.set $score (local.get $m))
    (local.set $j (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        ;; A token in the chain's range of ids has the table's mask (each compared as an id, as match.ts compares them).
        (local.set $t (i32.load (i32.add (global.get $a) (i32.shl (local.get $j) (i32.const 2)))))
        (local.set $eq (i32.const 0))
        (if (i32.and (i32.ge_s (local.get $t) (local.get $lo)) (i32.le_s (local.get $t) (local.get $hi)))
          (then
            (local.set $eq
              (i32.load (i32.add (global.get $ca) (i32.shl (i32.sub (local.get $t) (local.get $lo)) (i32.const 2)))))))
        (local.set $xv (i32.or (local.get $eq) (local.get $mv)))
        (local.set $xh
          (i32.or (i32.xor (i32.add (i32.and (local.get $eq) (local.get $pv)) (local.get $pv)) (local.get $pv))
            (local.get $eq)))
        (local.set $ph (i32.or (local.get $mv) (i32.xor (i32.or (local.get $xh) (local.get $pv)) (i32.const -1))))
        (local.set $mh (i32.and (local.get $pv) (local.get $xh)))
        (if (i32.and (local.get $ph) (local.get $high))
          (then (local.set $score (i32.add (local.get $score) (i32.const 1))))
          (else
            (if (i32.and (local.get $mh) (local.get $high))
              (then (local.set $score (i32.sub (local.get $score) (i32.const 1)))))))
        (local.set $ph (i32.shl (local.get $ph) (i32.const 1)))
        (local.set $mh (i32.shl (local.get $mh) (i32.const 1)))
        (local.set $pv (i32.or (local.get $mh) (i32.xor (i32.or (local.get $xv) (local.get $ph)) (i32.const -1))))
        (local.set $mv (i32.and (local.get $ph) (local.get $xv)))
        (i32.store (i32.add (global.get $v1) (i32.shl (local.get $j) (i32.const 2)))
          (select (local.get $score) (i32.add (local.get $k) (i32.const 1)) (i32.le_s (local.get $score) (local.get $k))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next))))

  ;; cutOffColumns of match.ts (a chain of more than 32 tokens): columns of the dynamic programme at $v2 (col) and
  ;; $v2 + 4 (m + 1) (next), cut off past k.
  (func $cutOff (param $n i32) (param $m i32) (param $k i32) (local $col i32) (local $nx i32) (local $swap i32)
    (local $i i32) (local $j i32) (local $t i32) (local $last i32) (local $upto i32) (local $sub i32) (local $del i32)
    (local $v i32)
    (local.set $col (global.get $v2))
    (local.set $nx (i32.add (global.get $v2) (i32.shl (i32.add (local.get $m) (i32.const 1)) (i32.const 2))))
    (local.set $i (i32.const 0))
    (block $f
      (loop $fl
        (br_if $f (i32.gt_s (local.get $i) (local.get $m)))
        (i32.store (i32.add (local.get $col) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $fl)))
    (local.set $last
      (select (local.get $m) (i32.add (local.get $k) (i32.const 1))
        (i32.lt_s (local.get $m) (i32.add (local.get $k) (i32.const 1)))))
    (local.set $j (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        (local.set $t (i32.load (i32.add (global.get $a) (i32.shl (local.get $j) (i32.const 2)))))
        (i32.store (i32.add (local.get $nx) (i32.shl (i32.const 0) (i32.const 2))) (i32.const 0))
        (local.set $upto
          (select (local.get $m) (i32.add (local.get $last) (i32.const 1))
            (i32.lt_s (local.get $m) (i32.add (local.get $last) (i32.const 1)))))
        (local.set $i (i32.const 1))
        (block $rows
          (loop $row
            (br_if $rows (i32.gt_s (local.get $i) (local.get $upto)))
            (local.set $sub
              (i32.add
                (i32.load (i32.add (local.get $col) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2))))
                (i32.ne
                  (i32.load (i32.add (global.get $b) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2))))
                  (local.get $t))))
            (local.set $del
              (i32.add
                (select (i32.load (i32.add (local.get $col) (i32.shl (local.get $i) (i32.const 2))))
                  (i32.add (local.get $k) (i32.const 1))
                  (i32.le_s (local.get $i) (local.get $last)))
                (i32.const 1)))
            (i32.store (i32.add (local.get $nx) (i32.shl (local.get $i) (i32.const 2)))
              (call $min3 (local.get $sub) (local.get $del)
                (i32.add
                  (i32.load (i32.add (local.get $nx) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2))))
                  (i32.const 1))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $row)))
        (local.set $i (i32.add (local.get $upto) (i32.const 1)))
        (block $rest
          (loop $rl
            (br_if $rest (i32.gt_s (local.get $i) (local.get $m)))
            (i32.store (i32.add (local.get $nx) (i32.shl (local.get $i) (i32.const 2)))
              (i32.add (local.get $k) (i32.const 1)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $rl)))
        (local.set $last (local.get $upto))
        (block $cut
          (loop $cl
            (br_if $cut (i32.le_s (local.get $last) (i32.const 0)))
            (br_if $cut
              (i32.le_s (i32.load (i32.add (local.get $nx) (i32.shl (local.get $last) (i32.const 2)))) (local.get $k)))
            (local.set $last (i32.sub (local.get $last) (i32.const 1)))
            (br $cl)))
        (local.set $v (i32.load (i32.add (local.get $nx) (i32.shl (local.get $m) (i32.const 2)))))
        (i32.store (i32.add (global.get $v1) (i32.shl (local.get $j) (i32.const 2)))
          (select (local.get $v) (i32.add (local.get $k) (i32.const 1)) (i32.le_s (local.get $v) (local.get $k))))
        (local.set $swap (local.get $col))
        (local.set $col (local.get $nx))
        (local.set $nx (local.get $swap))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next))))

  ;; bestStart of match.ts: the start s >= floor of the shortest text[s, end] within `edits` of the chain, or -1.
  (func $bestStart (param $m i32) (param $floor i32) (param $end i32) (param $edits i32) (result i32) (local $lo i32)
    (local $i i32) (local $s i32) (local $t i32) (local $diag i32) (local $up i32)
    (local.set $lo (i32.sub (i32.sub (i32.add (local.get $end) (i32.const 1)) (local.get $m)) (local.get $edits)))
    (if (i32.gt_s (local.get $floor) (local.get $lo)) (then (local.set $lo (local.get $floor))))
    (local.set $i (i32.const 0))
    (block $f
      (loop $fl
        (br_if $f (i32.gt_s (local.get $i) (local.get $m)))
        (i32.store (i32.add (global.get $row1) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $fl)))
    (local.set $s (local.get $end))
    (block $done
      (loop $next
        (br_if $done (i32.lt_s (local.get $s) (local.get $lo)))
        (local.set $t (i32.load (i32.add (global.get $a) (i32.shl (local.get $s) (i32.const 2)))))
        (local.set $diag (i32.load (i32.add (global.get $row1) (i32.shl (i32.const 0) (i32.const 2)))))
        (i32.store (i32.add (global.get $row1) (i32.shl (i32.const 0) (i32.const 2)))
          (i32.add (i32.sub (local.get $end) (local.get $s)) (i32.const 1)))
        (local.set $i (i32.const 1))
        (block $rows
          (loop $row
            (br_if $rows (i32.gt_s (local.get $i) (local.get $m)))
            (local.set $up (i32.load (i32.add (global.get $row1) (i32.shl (local.get $i) (i32.const 2)))))
            (i32.store (i32.add (global.get $row1) (i32.shl (local.get $i) (i32.const 2)))
              (call $min3
                (i32.add (local.get $diag)
                  (i32.ne
                    (i32.load (i32.add (global.get $b) (i32.shl (i32.sub (local.get $m) (local.get $i)) (i32.const 2))))
                    (local.get $t)))
                (i32.add (local.get $up) (i32.const 1))
                (i32.add
                  (i32.load (i32.add (global.get $row1) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2))))
                  (i32.const 1))))
            (local.set $diag (local.get $up))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $row)))
        (if (i32.le_s (i32.load (i32.add (global.get $row1) (i32.shl (local.get $m) (i32.const 2)))) (local.get $edits))
          (then (return (local.get $s))))
        (local.set $s (i32.sub (local.get $s) (i32.const 1)))
        (br $next)))
    (i32.const -1))

  ;; editDistance of match.ts between the chain and text[from, to): rows at $row1 and $row2.
  (func $editDistance (param $m i32) (param $from i32) (param $to i32) (result i32) (local $len i32) (local $prev i32)
    (local $cur i32) (local $swap i32) (local $i i32) (local $j i32) (local $ai i32)
    (local.set $len (i32.sub (local.get $to) (local.get $from)))
    (local.set $prev (global.get $row1))
    (local.set $cur (global.get $row2))
    (local.set $j (i32.const 0))
    (block $f
      (loop $fl
        (br_if $f (i32.gt_s (local.get $j) (local.get $len)))
        (i32.store (i32.add (local.get $prev) (i32.shl (local.get $j) (i32.const 2))) (local.get $j))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $fl)))
    (local.set $i (i32.const 1))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $i) (local.get $m)))
        (i32.store (i32.add (local.get $cur) (i32.shl (i32.const 0) (i32.const 2))) (local.get $i))
        (local.set $ai
          (i32.load (i32.add (global.get $b) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2)))))
        (local.set $j (i32.const 1))
        (block $cols
          (loop $col
            (br_if $cols (i32.gt_s (local.get $j) (local.get $len)))
            (i32.store (i32.add (local.get $cur) (i32.shl (local.get $j) (i32.const 2)))
              (call $min3
                (i32.add
                  (i32.load (i32.add (local.get $prev) (i32.shl (i32.sub (local.get $j) (i32.const 1)) (i32.const 2))))
                  (i32.ne (local.get $ai)
                    (i32.load
                      (i32.add (global.get $a)
                        (i32.shl (i32.sub (i32.add (local.get $from) (local.get $j)) (i32.const 1)) (i32.const 2))))))
                (i32.add (i32.load (i32.add (local.get $prev) (i32.shl (local.get $j) (i32.const 2)))) (i32.const 1))
                (i32.add
                  (i32.load (i32.add (local.get $cur) (i32.shl (i32.sub (local.get $j) (i32.const 1)) (i32.const 2))))
                  (i32.const 1))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $col)))
        (local.set $swap (local.get $prev))
        (local.set $prev (local.get $cur))
        (local.set $cur (local.get $swap))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.load (i32.add (local.get $prev) (i32.shl (local.get $len) (i32.const 2)))))

  ;; nearOccurrences of match.ts (m >= 1): the sites, left to right, at $stack; returns their number.
  (func (export "near") (param $n i32) (param $m i32) (param $k i32) (param $lo i32) (param $span i32) (result i32)
    (local $floor i32) (local $j i32) (local $best i32) (local $e i32) (local $start i32) (local $count i32)
    (local $p i32)
    (if (i32.le_s (local.get $m) (i32.const 32))
      (then (call $bitParallel (local.get $n) (local.get $m) (local.get $k) (local.get $lo) (local.get $span)))
      (else (call $cutOff (local.get $n) (local.get $m) (local.get $k))))
    (local.set $j (call $nextWithin (local.get $n) (i32.const 0) (local.get $k)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        ;; The run of ends within k (no further than k ahead): the first end with the least distance.
        (local.set $best (local.get $j))
        (local.set $e (i32.add (local.get $j) (i32.const 1)))
        (block $run
          (loop $rl
            (br_if $run (i32.ge_s (local.get $e) (local.get $n)))
            (br_if $run (i32.gt_s (local.get $e) (i32.add (local.get $j) (local.get $k))))
            (br_if $run
              (i32.gt_s (i32.load (i32.add (global.get $v1) (i32.shl (local.get $e) (i32.const 2)))) (local.get $k)))
            (if
              (i32.lt_s (i32.load (i32.add (global.get $v1) (i32.shl (local.get $e) (i32.const 2))))
                (i32.load (i32.add (global.get $v1) (i32.shl (local.get $best) (i32.const 2)))))
              (then (local.set $best (local.get $e))))
            (local.set $e (i32.add (local.get $e) (i32.const 1)))
            (br $rl)))
        (local.set $start
          (call $bestStart (local.get $m) (local.get $floor) (local.get $best)
            (i32.load (i32.add (global.get $v1) (i32.shl (local.get $best) (i32.const 2))))))
        (if (i32.ge_s (local.get $start) (i32.const 0))
          (then
            (local.set $p (i32.add (global.get $stack) (i32.mul (local.get $count) (i32.const 12))))
            (i32.store (local.get $p) (local.get $start))
            (i32.store offset=4 (local.get $p) (i32.add (local.get $best) (i32.const 1)))
            (i32.store offset=8 (local.get $p)
              (call $editDistance (local.get $m) (local.get $start) (i32.add (local.get $best) (i32.const 1))))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (local.set $floor (i32.add (local.get $best) (i32.const 1)))))
        (local.set $j (call $nextWithin (local.get $n) (i32.add (local.get $best) (i32.const 1)) (local.get $k)))
        (br $next)))
    (local.get $count))

  ;; The first end from j on whose distance is within k (n when none is).
  (func $nextWithin (param $n i32) (param $j i32) (param $k i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $j) (local.get $n)))
        (br_if $done
          (i32.le_s (i32.load (i32.add (global.get $v1) (i32.shl (local.get $j) (i32.const 2)))) (local.get $k)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $next)))
    (local.get $j))

  ;; realignTables of regroup.ts: both tables of the window (byte offsets in the loop: no shift per cell).
  (func (export "regroup") (param $a i32) (param $b i32) (param $keep i32) (param $edit i32) (param $n i32) (param $m i32)
        (param $K i32)
    (local $open i32) (local $p i32) (local $endp i32) (local $i i32) (local $jb i32) (local $mb i32) (local $e i32)
    (local $x i32) (local $k i32) (local $ai i32) (local $rowb i32) (local $upb i32) (local $leftKeep i32)
    (local $leftEdit i32) (local $diagKeep i32) (local $diagEdit i32) (local $upKeep i32) (local $upEdit i32)
    (local.set $open (i32.add (local.get $K) (i32.const 1)))
    (local.set $mb (i32.shl (local.get $m) (i32.const 2)))
    ;; Every cell of keep INF (none); edit's are each written below.
    (local.set $p (local.get $keep))
    (local.set $endp (i32.add (local.get $keep)
      (i32.shl (i32.mul (i32.add (local.get $n) (i32.const 1)) (i32.add (local.get $m) (i32.const 1))) (i32.const 2))))
    (block $f (loop $fl
      (br_if $f (i32.ge_u (local.get $p) (local.get $endp)))
      (i32.store (local.get $p) (i32.const 0x3fffffff))
      (local.set $p (i32.add (local.get $p) (i32.const 4)))
      (br $fl)))
    (i32.store (local.get $keep) (i32.const 0))
    (i32.store (local.get $edit) (i32.const 0x3fffffff))
    ;; Row 0: edits only.
    (local.set $leftKeep (i32.const 0))
    (local.set $leftEdit (i32.const 0x3fffffff))
    (local.set $jb (i32.const 4))
    (block $r0 (loop $r0l
      (br_if $r0 (i32.gt_s (local.get $jb) (local.get $mb)))
      (local.set $e (i32.add (local.get $leftKeep) (local.get $open)))
      (local.set $x (i32.add (local.get $leftEdit) (local.get $K)))
      (if (i32.lt_s (local.get $x) (local.get $e)) (then (local.set $e (local.get $x))))
      (if (i32.ge_s (local.get $e) (i32.const 0x3fffffff)) (then (local.set $e (i32.const 0x3fffffff))))
      (i32.store (i32.add (local.get $edit) (local.get $jb)) (local.get $e))
      (local.set $leftKeep (i32.const 0x3fffffff))
      (local.set $leftEdit (local.get $e))
      (local.set $jb (i32.add (local.get $jb) (i32.const 4)))
      (br $r0l)))
    (local.set $i (i32.const 1))
    (local.set $upb (i32.const 0))
    (block $done (loop $rows
      (br_if $done (i32.gt_s (local.get $i) (local.get $n)))
      (local.set $ai (i32.load (i32.add (local.get $a) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2)))))
      (local.set $rowb (i32.add (local.get $upb) (i32.add (local.get $mb) (i32.const 4))))
      (local.set $diagKeep (i32.load (i32.add (local.get $keep) (local.get $upb))))
      (local.set $diagEdit (i32.load (i32.add (local.get $edit) (local.get $upb))))
      ;; Column 0: a deletion only.
      (local.set $e (i32.add (local.get $diagKeep) (local.get $open)))
      (local.set $x (i32.add (local.get $diagEdit) (local.get $K)))
      (if (i32.lt_s (local.get $x) (local.get $e)) (then (local.set $e (local.get $x))))
      (if (i32.ge_s (local.get $e) (i32.const 0x3fffffff)) (then (local.set $e (i32.const 0x3fffffff))))
      (i32.store (i32.add (local.get $edit) (local.get $rowb)) (local.get $e))
      (local.set $leftKeep (i32.const 0x3fffffff))
      (local.set $leftEdit (local.get $e))
      (local.set $jb (i32.const 4))
      (block $cols (loop $col
        (br_if $cols (i32.gt_s (local.get $jb) (local.get $mb)))
        (local.set $upKeep (i32.load (i32.add (local.get $keep) (i32.add (local.get $upb) (local.get $jb)))))
        (local.set $upEdit (i32.load (i32.add (local.get $edit) (i32.add (local.get $upb) (local.get $jb)))))
        (local.set $k (i32.const 0x3fffffff))
        (if (i32.eq (local.get $ai) (i32.load offset=0 (i32.sub (i32.add (local.get $b) (local.get $jb)) (i32.const 4))))
          (then
            (local.set $k (select (local.get $diagKeep) (local.get $diagEdit)
                                  (i32.lt_s (local.get $diagKeep) (local.get $diagEdit))))
            (i32.store (i32.add (local.get $keep) (i32.add (local.get $rowb) (local.get $jb))) (local.get $k))))
        (local.set $e (i32.add (local.get $upKeep) (local.get $open)))
        (local.set $x (i32.add (local.get $upEdit) (local.get $K)))
        (if (i32.lt_s (local.get $x) (local.get $e)) (then (local.set $e (local.get $x))))
        (local.set $x (i32.add (local.get $leftKeep) (local.get $open)))
        (if (i32.lt_s (local.get $x) (local.get $e)) (then (local.set $e (local.get $x))))
        (local.set $x (i32.add (local.get $leftEdit) (local.get $K)))
        (if (i32.lt_s (local.get $x) (local.get $e)) (then (local.set $e (local.get $x))))
        (if (i32.ge_s (local.get $e) (i32.const 0x3fffffff)) (then (local.set $e (i32.const 0x3fffffff))))
        (i32.store (i32.add (local.get $edit) (i32.add (local.get $rowb) (local.get $jb))) (local.get $e))
        (local.set $leftKeep (local.get $k))
        (local.set $leftEdit (local.get $e))
        (local.set $diagKeep (local.get $upKeep))
        (local.set $diagEdit (local.get $upEdit))
        (local.set $jb (i32.add (local.get $jb) (i32.const 4)))
        (br $col)))
      (local.set $upb (local.get $rowb))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $rows))))
)
