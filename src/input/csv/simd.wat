;; The SIMD engine: the CSV record scanner's inner loop in WebAssembly SIMD. scan.ts owns the semantics and calls
;; record(). Assembled by scripts/wasm.mjs, which splices the decoders of record runs in where it says
;; `;; @decoders` (one module: a decoder calls record() once per record, and a call between modules costs more than a
;; record) and replaces each double-braced NAME by its number in the layout table there (the same numbers reach
;; TypeScript as simdLayout.ts and each decoder's layout module), into simdWasm.ts. The one decoder is the kernel
;; table's (src/input/formats/kernelRows.wat: plain kernel rows in batches).
;;
;; The algorithm.
;; 1. record(p, end, limit) scans one CSV record from p. Bytes are loaded sixteen at a time and compared with
;;    `,` `"` and LF at once (i8x16.eq, then i8x16.bitmask: one bit per byte); the lowest set bit (ctz) is the
;;    next byte that matters. For the first `limit` cells it writes where each starts and ends and its flags (as
;;    scan.ts's RowView holds them); their commas and line feeds are taken 64 bytes at a time into one i64 mask,
;;    so a plain cell there costs a ctz and a load per 64 bytes (a quoted cell starts a new block). A quoted cell
;;    there ($quoted) is searched for quotes and LFs sixteen bytes at a time; `""` is an escape, a lone quote ends it.
;;    Past them it only counts commas, 64 bytes at a time with no loop per cell or quote: the quotes toggle a mask
;;    of the bytes inside quotes (a prefix XOR), the commas outside it are counted (popcnt) up to the first line
;;    feed outside it, and the quotes are checked to be those of quoted cells. That is most of the speed on wide
;;    tables.
;;    It handles what a profile is made of: plain cells, quoted cells with `""`, commas and LFs inside quotes,
;;    CRLF. Anything else it leaves to the JavaScript scanner, which then scans that one record itself:
;;      -1  the record does not end before `end` (more data is needed, or it is the last record of the input);
;;      -2  the record is irregular (text after a closing quote, a CR after one not followed by LF, more than
;;          CAP cells to locate), or has a quote inside an unquoted cell past the located ones.
;;    So the two engines agree on every input: this one is only a faster path through the common records.
;; Memory (offsets in bytes, see simdLayout.ts): META (cells and line feeds of the last record), the located cells
;; (STARTS, ENDS, FLAGS: 1 quoted, 3 quoted with "" escapes), the regions of the decoders, then the data buffer at
;; DATA. The caller writes a line feed at `end` (a sentinel that stops every search) and keeps 64 readable bytes past
;; it, since searches load up to 64 bytes at a time.

(module
  (memory (export "memory") 2)

  ;; Set by $quoted: where the closing quote is, the cell's flags, line feeds seen inside.
  (global $close (mut i32) (i32.const 0))
  (global $qflags (mut i32) (i32.const 0))
  (global $nl (mut i32) (i32.const 0))

  ;; A quoted cell opening at p. Returns the position after it: at the comma or line feed that follows the
  ;; closing quote (past a CR before that line feed); -1 if the data ends first; -2 for text after the quote.
  ;; The quotes and line feeds of each sixteen bytes are taken from one load, lowest first.
  (func $quoted (param $p i32) (param $end i32) (result i32)
    (local $q i32) (local $v v128) (local $qm i32) (local $lm i32) (local $m i32) (local $k i32) (local $x i32)
    (local $c i32) (local $flags i32)
    (local.set $flags (i32.const 1))
    (local.set $q (i32.add (local.get $p) (i32.const 1)))
    (block $closed
      (loop $load
        (local.set $v (v128.load align=1 (local.get $q)))
        (local.set $qm (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
        (local.set $lm (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
        (loop $bits
          (local.set $m (i32.or (local.get $qm) (local.get $lm)))
          (if (i32.eqz (local.get $m))
            (then
              (local.set $q (i32.add (local.get $q) (i32.const 16)))
              (br $load)))
          (local.set $k (i32.ctz (local.get $m)))
          (local.set $x (i32.add (local.get $q) (local.get $k)))
          (if (i32.ge_u (local.get $x) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.and (i32.shr_u (local.get $lm) (local.get $k)) (i32.const 1))
            (then
              (global.set $nl (i32.add (global.get $nl) (i32.const 1)))
              (local.set $lm (i32.and (local.get $lm) (i32.sub (local.get $lm) (i32.const 1))))
              (br $bits)))
          ;; A quote at x: the byte after it decides.
          (if (i32.ge_u (i32.add (local.get $x) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u offset=1 (local.get $x)))
          (br_if $closed (i32.ne (local.get $c) (i32.const 34)))
          ;; "" stands for a quote: drop both from the mask (or load on past them when the second is beyond it).
          (local.set $flags (i32.const 3))
          (if (i32.eq (local.get $k) (i32.const 15))
            (then
              (local.set $q (i32.add (local.get $x) (i32.const 2)))
              (br $load)))
          (local.set $qm (i32.and (local.get $qm) (i32.xor (i32.shl (i32.const 3) (local.get $k)) (i32.const -1))))
          (br $bits))))
    (global.set $close (local.get $x))
    (global.set $qflags (local.get $flags))
    (if (i32.or (i32.eq (local.get $c) (i32.const 44)) (i32.eq (local.get $c) (i32.const 10)))
      (then (return (i32.add (local.get $x) (i32.const 1)))))
    (if (i32.eq (local.get $c) (i32.const 13))
      (then
        (if (i32.ge_u (i32.add (local.get $x) (i32.const 2)) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.eq (i32.load8_u offset=2 (local.get $x)) (i32.const 10))
          (then (return (i32.add (local.get $x) (i32.const 2)))))))
    (i32.const -2))

  ;; One record from p (p < end). Returns the position after its line feed, -1 or -2 (see the top).
  (func $record (export "record") (param $p i32) (param $end i32) (param $limit i32) (result i32)
    (local $n i32) (local $s i32) (local $v v128) (local $c i32) (local $y i32)
    (local $r i32) (local $k i32) (local $x i32) (local $blk i32) (local $bm i64) (local $lim i32)
    (local $qm i64) (local $cm i64) (local $lm i64) (local $bx i64) (local $in i64) (local $sep i64) (local $lo i64)
    (local $below i64) (local $cq i64) (local $bad i64) (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (global.set $nl (i32.const 0))
    ;; No block yet: the first unquoted cell loads the one at p.
    (local.set $blk (i32.sub (local.get $p) (i32.const 64)))
    ;; Located cells.
    ;; lim: the cells to locate, at most CAP (a record with more to locate goes to the JavaScript scanner).
    (local.set $lim (select (local.get $limit) (i32.const {{CAP}}) (i32.lt_u (local.get $limit) (i32.const {{CAP}}))))
    (block $tail
      (loop $cell
        (if (i32.ge_u (local.get $n) (local.get $lim))
          (then
            (br_if $tail (i32.ge_u (local.get $n) (local.get $limit)))
            (return (i32.const -2))))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 34))
          (then
            (local.set $r (call $quoted (local.get $p) (local.get $end)))
            (if (i32.lt_s (local.get $r) (i32.const 0)) (then (return (local.get $r))))
            (local.set $k (i32.shl (local.get $n) (i32.const 2)))
            (i32.store offset={{STARTS}} (local.get $k) (i32.add (local.get $p) (i32.const 1)))
            (i32.store offset={{ENDS}} (local.get $k) (global.get $close))
            (i32.store8 offset={{FLAGS}} (local.get $n) (global.get $qflags))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (if (i32.eq (i32.load8_u (local.get $r)) (i32.const 44))
              (then
                (local.set $p (i32.add (local.get $r) (i32.const 1)))
                ;; The block is behind: the next unquoted cell loads the one at p.
                (local.set $blk (i32.sub (local.get $p) (i32.const 64)))
                (local.set $bm (i64.const 0))
                (br $cell)))
            (i32.store (i32.const {{META_CELLS}}) (local.get $n))
            (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
            (return (i32.add (local.get $r) (i32.const 1)))))
        ;; An unquoted cell: it ends at the first comma or line feed (a quote inside it is data). The commas and line
        ;; feeds of 64 bytes at a time are one mask (bm: those not yet passed), so the cells of a block cost a ctz
        ;; each; the next block is loaded when this one has none left (the line feed at `end` stops them).
        (local.set $s (local.get $p))
        (block $found
          (loop $find
            (br_if $found (i64.ne (local.get $bm) (i64.const 0)))
            (local.set $blk (i32.add (local.get $blk) (i32.const 64)))
            (local.set $bm
              (i64.or
                (i64.or
                  (i64.extend_i32_u (i8x16.bitmask (v128.or
                  (i8x16.eq (local.tee $v (v128.load align=1 (local.get $blk))) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))
                  (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))))
                  (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or
                  (i8x16.eq (local.tee $v (v128.load align=1 (i32.add (local.get $blk) (i32.const 16)))) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))
                  (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))) (i64.const 16)))
                (i64.or
                  (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or
                  (i8x16.eq (local.tee $v (v128.load align=1 (i32.add (local.get $blk) (i32.const 32)))) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))
                  (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))) (i64.const 32))
                  (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or
                  (i8x16.eq (local.tee $v (v128.load align=1 (i32.add (local.get $blk) (i32.const 48)))) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))
                  (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))) (i64.const 48)))))
            (br $find)))
        ;; y: the comma or line feed that ends the cell (the line feed at `end` when the data ends first).
        (local.set $y (i32.add (local.get $blk) (i32.wrap_i64 (i64.ctz (local.get $bm)))))
        (local.set $bm (i64.and (local.get $bm) (i64.sub (local.get $bm) (i64.const 1))))
        (local.set $k (i32.shl (local.get $n) (i32.const 2)))
        (i32.store offset={{STARTS}} (local.get $k) (local.get $s))
        (i32.store offset={{ENDS}} (local.get $k) (local.get $y))
        (i32.store8 offset={{FLAGS}} (local.get $n) (i32.const 0))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $p (i32.add (local.get $y) (i32.const 1)))
        (br_if $cell (i32.ne (i32.load8_u (local.get $y)) (i32.const 10)))
        ;; A line feed: the end of the record (a CR before it is not the cell's), unless it is the one at `end`.
        (if (i32.ge_u (local.get $y) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.gt_u (local.get $y) (local.get $s))
          (then
            (if (i32.eq (i32.load8_u (i32.sub (local.get $y) (i32.const 1))) (i32.const 13))
              (then (i32.store offset={{ENDS}} (local.get $k) (i32.sub (local.get $y) (i32.const 1)))))))
        (i32.store (i32.const {{META_CELLS}}) (local.get $n))
        (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
        (return (local.get $p))))
    ;; The rest of the record, 64 bytes at a time, with no loop per cell or quote: p starts a cell (the n-th,
    ;; counted now). Of each block, qm, cm and lm are its quotes, commas and line feeds; X is the bytes inside quotes
    ;; (each quote toggles it: a prefix XOR of qm in six shifts, carried from block to block in `in`, all ones when
    ;; the block starts inside quotes). The record ends at the first line feed outside quotes; the commas outside
    ;; quotes before it are counted, and the line feeds inside. The quotes must be those of quoted cells: each
    ;; opening one (where X turns on) follows a comma, the start of the tail or a quote (the second of `""`), and
    ;; each closing one (where X turns off) is followed by a quote (the first of `""`), a comma, a line feed, or a
    ;; CR and a line feed; else the record is irregular, or has a quote inside an unquoted cell (data there), and
    ;; goes to the JavaScript scanner (-2). `sep` carries whether the byte before the block is a comma or a quote.
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (local.set $blk (local.get $p))
    (local.set $in (i64.const 0))
    (local.set $sep (i64.const 1))
    (loop $block
      (if (i32.ge_u (local.get $blk) (local.get $end)) (then (return (i32.const -1))))
      (local.set $v0 (v128.load align=1 (local.get $blk)))
      (local.set $v1 (v128.load offset=16 align=1 (local.get $blk)))
      (local.set $v2 (v128.load offset=32 align=1 (local.get $blk)))
      (local.set $v3 (v128.load offset=48 align=1 (local.get $blk)))
      (local.set $cm
        (i64.or
          (i64.or
            (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44)))) (i64.const 16)))
          (i64.or
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44)))) (i64.const 32))
            (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44)))) (i64.const 48)))))
      ;; Quotes and line feeds: their masks only when the block has any.
      (local.set $qm (i64.const 0))
      (if (v128.any_true (v128.or
            (v128.or (i8x16.eq (local.get $v0) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
              (i8x16.eq (local.get $v1) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))
            (v128.or (i8x16.eq (local.get $v2) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
              (i8x16.eq (local.get $v3) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))))
        (then
          (local.set $qm
            (i64.or
              (i64.or
                (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))) (i64.const 16)))
              (i64.or
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))) (i64.const 32))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))) (i64.const 48)))))))
      (local.set $lm (i64.const 0))
      (if (v128.any_true (v128.or
            (v128.or (i8x16.eq (local.get $v0) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))
              (i8x16.eq (local.get $v1) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))
            (v128.or (i8x16.eq (local.get $v2) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))
              (i8x16.eq (local.get $v3) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))))
        (then
          (local.set $lm
            (i64.or
              (i64.or
                (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v0) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v1) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))) (i64.const 16)))
              (i64.or
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v2) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))) (i64.const 32))
                (i64.shl (i64.extend_i32_u (i8x16.bitmask (i8x16.eq (local.get $v3) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))) (i64.const 48)))))))
      (if (i64.eqz (i64.or (local.get $qm) (local.get $in)))
        (then
          ;; No quote and none open: the commas before the first line feed, if any.
          (if (i64.eqz (local.get $lm))
            (then
              (local.set $n (i32.add (local.get $n) (i32.wrap_i64 (i64.popcnt (local.get $cm)))))
              (local.set $sep (i64.shr_u (local.get $cm) (i64.const 63)))
              (local.set $blk (i32.add (local.get $blk) (i32.const 64)))
              (br $block)))
          (local.set $x (i32.add (local.get $blk) (i32.wrap_i64 (i64.ctz (local.get $lm)))))
          (if (i32.ge_u (local.get $x) (local.get $end)) (then (return (i32.const -1))))
          (local.set $n (i32.add (local.get $n) (i32.wrap_i64 (i64.popcnt (i64.and (local.get $cm)
            (i64.shr_u (i64.xor (local.get $lm) (i64.sub (local.get $lm) (i64.const 1))) (i64.const 1)))))))
          (i32.store (i32.const {{META_CELLS}}) (local.get $n))
          (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
          (return (i32.add (local.get $x) (i32.const 1)))))
      ;; X: the bytes inside quotes (an opening quote is inside, a closing one outside).
      (local.set $bx (local.get $qm))
      (local.set $bx (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 1))))
      (local.set $bx (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 2))))
      (local.set $bx (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 4))))
      (local.set $bx (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 8))))
      (local.set $bx (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 16))))
      (local.set $bx (i64.xor (i64.xor (local.get $bx) (i64.shl (local.get $bx) (i64.const 32))) (local.get $in)))
      ;; The line feeds outside quotes; below: the bits before the first (all of them when there is none).
      (local.set $lo (i64.and (local.get $lm) (i64.xor (local.get $bx) (i64.const -1))))
      (local.set $below (i64.const -1))
      (if (i64.eqz (local.get $lo))
        (then (if (i32.gt_u (i32.add (local.get $blk) (i32.const 64)) (local.get $end)) (then (return (i32.const -1)))))
        (else
          (local.set $x (i32.add (local.get $blk) (i32.wrap_i64 (i64.ctz (local.get $lo)))))
          (if (i32.ge_u (local.get $x) (local.get $end)) (then (return (i32.const -1))))
          (local.set $below (i64.shr_u (i64.xor (local.get $lo) (i64.sub (local.get $lo) (i64.const 1))) (i64.const 1)))))
      ;; Quotes out of place (before the record's end): each quote opens (inside X) or closes (outside it); an
      ;; opening one must follow a comma or a quote (sep: for the block's first bit), a closing one come before a
      ;; comma, a quote or a line feed. A closing quote on the block's last bit, or before a CR, is left to the loop
      ;; below, which looks at the bytes after it.
      (local.set $cq (i64.or (local.get $cm) (local.get $qm)))
      (local.set $bad (i64.and (i64.and (local.get $below) (local.get $qm)) (i64.xor (i64.const -1) (i64.or
        (i64.and (local.get $bx) (i64.or (i64.shl (local.get $cq) (i64.const 1)) (local.get $sep)))
        (i64.and (i64.xor (local.get $bx) (i64.const -1)) (i64.shr_u (i64.or (local.get $cq) (local.get $lm)) (i64.const 1)))))))
      ;; Of those, a closing quote before a comma, quote or line feed, or a CR and a line feed, is in place; an
      ;; opening one, or anything else after a closing one, is not.
      (block $placed
        (loop $each
          (br_if $placed (i64.eqz (local.get $bad)))
          (local.set $y (i32.add (local.get $blk) (i32.wrap_i64 (i64.ctz (local.get $bad)))))
          (if (i64.ne (i64.and (i64.and (local.get $bad) (i64.sub (i64.const 0) (local.get $bad))) (local.get $bx)) (i64.const 0))
            (then (return (i32.const -2))))
          (local.set $c (i32.load8_u offset=1 (local.get $y)))
          (if (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 44)) (i32.eq (local.get $c) (i32.const 34)))
                (i32.or (i32.eq (local.get $c) (i32.const 10))
                  (i32.and (i32.eq (local.get $c) (i32.const 13)) (i32.eq (i32.load8_u offset=2 (local.get $y)) (i32.const 10))))))
            (then (return (i32.const -2))))
          (local.set $bad (i64.and (local.get $bad) (i64.sub (local.get $bad) (i64.const 1))))
          (br $each)))
      (local.set $n (i32.add (local.get $n) (i32.wrap_i64 (i64.popcnt
        (i64.and (i64.and (local.get $cm) (local.get $below)) (i64.xor (local.get $bx) (i64.const -1)))))))
      (global.set $nl (i32.add (global.get $nl) (i32.wrap_i64 (i64.popcnt
        (i64.and (i64.and (local.get $lm) (local.get $below)) (local.get $bx))))))
      (if (i64.ne (local.get $lo) (i64.const 0))
        (then
          (i32.store (i32.const {{META_CELLS}}) (local.get $n))
          (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
          (return (i32.add (local.get $x) (i32.const 1)))))
      (local.set $in (i64.shr_s (local.get $bx) (i64.const 63)))
      (local.set $sep (i64.shr_u (local.get $cq) (i64.const 63)))
      (local.set $blk (i32.add (local.get $blk) (i32.const 64)))
      (br $block))
    (unreachable))

  ;; @decoders (scripts/wasm.mjs splices the record-run decoders in here)
)
