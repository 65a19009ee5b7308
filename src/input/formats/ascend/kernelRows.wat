  ;; The kernel table's decoder of record runs, spliced into simd.wat by scripts/wasm.mjs (so these are fields of
  ;; that module, calling its $record, and the cell parsers $ticks, $start and $step of kernelCells.wat);
  ;; kernelBatch.ts configures it and reads its batches. Kernel-table concepts live here and in formats/, not in csv/.
  ;;
  ;; 1. rows(p, end), after configure(), calls record() on each record from p while it is a plain kernel row: as
  ;;    many cells as the header, a duration that $ticks reads as a plain decimal (exactly as parseTicks does, in
  ;;    integer ticks of 1e-4 µs, below 2^31), a Step Id that $step reads as a plain integer or empty, and a group
  ;;    key (the raw bytes of the key cells, and of the shapes cell) already in the key table. Per row it writes the
  ;;    key's id, the step, the ticks and, when configured, the start time in exact ticks after the file's origin
  ;;    ($start: the first time read is the origin, unless the reader set it first) and the Stream ID ($step's plain
  ;;    integer, else -1: none). It stops at the first other record or
  ;;    after MAX_BATCH rows; the JavaScript reader reads that record the slow way (and gives a new key its id with
  ;;    keyId()). So every number a batch holds is what the JavaScript parsers give.
  ;; 2. The key table is open addressing over KEY_SLOTS slots (linear probing; a slot holds entry + 1, 0: empty).
  ;;    The hash multiplies in sixteen bytes at a time in two lanes (the last ones masked, with their number) and
  ;;    folds the high bits down; an entry keeps the hash, the two span lengths and where its bytes are in the arena, so a lookup
  ;;    compares hash and lengths before bytes. Full (MAX_KEYS keys or ARENA_LIMIT bytes), keyId() says -1 and the
  ;;    caller empties it (resetKeys) and gives ids anew.
  ;;
  ;; Memory (offsets in bytes, see kernelRowsLayout.ts): BATCH_META (rows and line feeds of the last batch), the batch
  ;; (IDS, STEPS with -2147483648 for none, TICKS, START_AFTER with NaN for none, STREAMS with -1 for
  ;; none), the key table
  ;; (SLOTS, HASHES, OFFSETS, LEN1, LEN2 with -1 for no second span, ARENA).

  (global $width (mut i32) (i32.const 0))
  (global $durI (mut i32) (i32.const 0))
  (global $stepI (mut i32) (i32.const -1))
  (global $keyLo (mut i32) (i32.const 0))
  (global $keyHi (mut i32) (i32.const 0))
  (global $shapesI (mut i32) (i32.const -1))
  (global $startI (mut i32) (i32.const -1))
  (global $streamI (mut i32) (i32.const -1))
  ;; The whole µs of the file's first start time, which start times are ticks after (NaN until one is read: by
  ;; $start, or by the reader, which says so with setOrigin).
  (global $origin (mut f64) (f64.const nan))
  (global $locate (mut i32) (i32.const 1))
  (global $keys (mut i32) (i32.const 0))
  (global $used (mut i32) (i32.const 0))

  (func (export "configure") (param $width i32) (param $durI i32) (param $stepI i32) (param $keyLo i32) (param $keyHi i32)
    (param $shapesI i32) (param $startI i32) (param $streamI i32) (param $locate i32)
    (global.set $width (local.get $width))
    (global.set $durI (local.get $durI))
    (global.set $stepI (local.get $stepI))
    (global.set $keyLo (local.get $keyLo))
    (global.set $keyHi (local.get $keyHi))
    (global.set $shapesI (local.get $shapesI))
    (global.set $startI (local.get $startI))
    (global.set $streamI (local.get $streamI))
    (global.set $locate (local.get $locate))
    (global.set $origin (f64.const nan)))

  ;; The file's origin, as the reader has it (setOrigin) and as a batch may have set it (origin).
  (func (export "setOrigin") (param $us f64)
    (global.set $origin (local.get $us)))
  (func (export "origin") (result f64)
    (global.get $origin))


  ;; The first `len` (< 8) bytes at p as a little-endian word, the rest zero (p may be read 8 bytes on).
  (func $partial (param $p i32) (param $len i32) (result i64)
    (if (result i64) (i32.eqz (local.get $len))
      (then (i64.const 0))
      (else
        (i64.and (i64.load align=1 (local.get $p))
          (i64.shr_u (i64.const -1) (i64.extend_i32_u (i32.sub (i32.const 64) (i32.shl (local.get $len) (i32.const 3)))))))))


  ;; Hashing: sixteen bytes at a time, the two words of each in two lanes xor-ed in and multiplied (two chains the
  ;; processor runs side by side); then eight bytes more if there are, and the last ones (fewer than eight) with their
  ;; number. Equal spans hash alike; a collision costs only a comparison ($same).
  (func $hashSpan (param $h i64) (param $s i32) (param $e i32) (result i64)
    (local $len i32) (local $g i64)
    (local.set $g (i64.xor (local.get $h) (i64.const 0x6A09E667F3BCC908)))
    (block $done (loop $l
      (br_if $done (i32.gt_s (i32.add (local.get $s) (i32.const 16)) (local.get $e)))
      (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load align=1 (local.get $s))) (i64.const 0x9E3779B97F4A7C15)))
      (local.set $g (i64.mul (i64.xor (local.get $g) (i64.load offset=8 align=1 (local.get $s))) (i64.const 0xC2B2AE3D27D4EB4F)))
      (local.set $s (i32.add (local.get $s) (i32.const 16)))
      (br $l)))
    (if (i32.le_s (i32.add (local.get $s) (i32.const 8)) (local.get $e))
      (then
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load align=1 (local.get $s))) (i64.const 0x9E3779B97F4A7C15)))
        (local.set $s (i32.add (local.get $s) (i32.const 8)))))
    (local.set $len (i32.sub (local.get $e) (local.get $s)))
    (i64.mul
      (i64.xor (i64.xor (local.get $h) (i64.rotl (local.get $g) (i64.const 29)))
        (i64.xor (call $partial (local.get $s) (local.get $len))
          (i64.shl (i64.extend_i32_u (local.get $len)) (i64.const 56))))
      (i64.const 0x9E3779B97F4A7C15)))

  (func $hash (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $h i64)
    (local.set $h (call $hashSpan (i64.const 0x243F6A8885A308D3) (local.get $s1) (local.get $e1)))
    (if (i32.ge_s (local.get $s2) (i32.const 0))
      (then (local.set $h (call $hashSpan (i64.xor (local.get $h) (i64.const 0x1e)) (local.get $s2) (local.get $e2)))))
    ;; Fold the high bits into the low ones, which pick the slot.
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xBF58476D1CE4E5B9)))
    (i32.wrap_i64 (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32)))))

  ;; Are the `len` bytes at a and at b the same? Sixteen at a time, then eight, then the rest.
  (func $same (param $a i32) (param $b i32) (param $len i32) (result i32)
    (block $done (loop $l
      (br_if $done (i32.lt_s (local.get $len) (i32.const 16)))
      (if (v128.any_true (v128.xor (v128.load align=1 (local.get $a)) (v128.load align=1 (local.get $b)))) (then (return (i32.const 0))))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (local.set $b (i32.add (local.get $b) (i32.const 16)))
      (local.set $len (i32.sub (local.get $len) (i32.const 16)))
      (br $l)))
    (if (i32.ge_s (local.get $len) (i32.const 8))
      (then
        (if (i64.ne (i64.load align=1 (local.get $a)) (i64.load align=1 (local.get $b))) (then (return (i32.const 0))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $b (i32.add (local.get $b) (i32.const 8)))
        (local.set $len (i32.sub (local.get $len) (i32.const 8)))))
    (i64.eq (call $partial (local.get $a) (local.get $len)) (call $partial (local.get $b) (local.get $len))))

  ;; The slot of a key: where its entry is, or the empty slot where it would go. Slots hold entry + 1.
  (func $slot (param $h i32) (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $i i32) (local $k i32) (local $l1 i32) (local $off i32)
    (local.set $l1 (i32.sub (local.get $e1) (local.get $s1)))
    (local.set $i (i32.and (local.get $h) (i32.const {{SLOT_MASK}})))
    (loop $probe
      (local.set $k (i32.load offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2))))
      (if (i32.eqz (local.get $k)) (then (return (local.get $i))))
      (local.set $k (i32.shl (i32.sub (local.get $k) (i32.const 1)) (i32.const 2)))
      (if (i32.and
            (i32.eq (i32.load offset={{HASHES}} (local.get $k)) (local.get $h))
            (i32.eq (i32.load offset={{LEN1}} (local.get $k)) (local.get $l1)))
        (then
          (local.set $off (i32.load offset={{OFFSETS}} (local.get $k)))
          (if (i32.lt_s (local.get $s2) (i32.const 0))
            (then
              (if (i32.eq (i32.load offset={{LEN2}} (local.get $k)) (i32.const -1))
                (then
                  (if (call $same (i32.add (local.get $off) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
                    (then (return (local.get $i)))))))
            (else
              (if (i32.eq (i32.load offset={{LEN2}} (local.get $k)) (i32.sub (local.get $e2) (local.get $s2)))
                (then
                  (if (i32.and
                        (call $same (i32.add (local.get $off) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
                        (call $same (i32.add (i32.add (local.get $off) (local.get $l1)) (i32.const {{ARENA}})) (local.get $s2)
                          (i32.sub (local.get $e2) (local.get $s2))))
                    (then (return (local.get $i))))))))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.const {{SLOT_MASK}})))
      (br $probe))
    (unreachable))

  ;; The id of a key, -1 when it is not in the table.
  (func $find (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $k i32)
    (local.set $k
      (i32.load offset={{SLOTS}}
        (i32.shl
          (call $slot (call $hash (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2))
            (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2))
          (i32.const 2))))
    (i32.sub (local.get $k) (i32.const 1)))

  ;; The id of a key, given one if it is new; -1 when the table is full (resetKeys() then empties it).
  (func (export "keyId") (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $h i32) (local $i i32) (local $k i32) (local $l1 i32) (local $l2 i32)
    (local.set $h (call $hash (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2)))
    (local.set $i (call $slot (local.get $h) (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2)))
    (local.set $k (i32.load offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2))))
    (if (local.get $k) (then (return (i32.sub (local.get $k) (i32.const 1)))))
    (local.set $l1 (i32.sub (local.get $e1) (local.get $s1)))
    (local.set $l2 (if (result i32) (i32.lt_s (local.get $s2) (i32.const 0))
      (then (i32.const 0)) (else (i32.sub (local.get $e2) (local.get $s2)))))
    (if (i32.or
          (i32.ge_u (global.get $keys) (i32.const {{MAX_KEYS}}))
          (i32.gt_u (i32.add (i32.add (global.get $used) (local.get $l1)) (local.get $l2)) (i32.const {{ARENA_LIMIT}})))
      (then (return (i32.const -1))))
    (local.set $k (i32.shl (global.get $keys) (i32.const 2)))
    (i32.store offset={{HASHES}} (local.get $k) (local.get $h))
    (i32.store offset={{OFFSETS}} (local.get $k) (global.get $used))
    (i32.store offset={{LEN1}} (local.get $k) (local.get $l1))
    (i32.store offset={{LEN2}} (local.get $k) (if (result i32) (i32.lt_s (local.get $s2) (i32.const 0))
      (then (i32.const -1)) (else (local.get $l2))))
    (memory.copy (i32.add (global.get $used) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
    (if (i32.gt_s (local.get $l2) (i32.const 0))
      (then
        (memory.copy (i32.add (i32.add (global.get $used) (local.get $l1)) (i32.const {{ARENA}})) (local.get $s2) (local.get $l2))))
    (global.set $used (i32.add (i32.add (global.get $used) (local.get $l1)) (local.get $l2)))
    (global.set $keys (i32.add (global.get $keys) (i32.const 1)))
    (i32.store offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2)) (global.get $keys))
    (i32.sub (global.get $keys) (i32.const 1)))

  (func (export "resetKeys")
    (memory.fill (i32.const {{SLOTS}}) (i32.const 0) (i32.const {{SLOTS_BYTES}}))
    (global.set $keys (i32.const 0))
    (global.set $used (i32.const 0)))

  ;; Plain kernel rows from p, at most 2048; returns where it stopped (see above).
  (func (export "rows") (param $p i32) (param $end i32) (result i32)
    (local $k i32) (local $nl i32) (local $r i32) (local $d i64) (local $st i32) (local $id i32) (local $s2 i32) (local $e2 i32)
    (local $o i32)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $k) (i32.const {{MAX_BATCH}})))
        (br_if $stop (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $r (call $record (local.get $p) (local.get $end) (global.get $locate)))
        (br_if $stop (i32.lt_s (local.get $r) (i32.const 0)))
        (br_if $stop (i32.ne (i32.load (i32.const {{META_CELLS}})) (global.get $width)))
        (local.set $o (i32.shl (global.get $durI) (i32.const 2)))
        (local.set $d (call $ticks (i32.load offset={{STARTS}} (local.get $o)) (i32.load offset={{ENDS}} (local.get $o))))
        (br_if $stop (i64.lt_s (local.get $d) (i64.const 0)))
        ;; Ticks past 2^31 - 1 (a kernel of over 214 ms) go the slow way: a batch holds them as i32.
        (br_if $stop (i64.gt_s (local.get $d) (i64.const 2147483647)))
        (local.set $st (i32.const -2147483648))
        (if (i32.ge_s (global.get $stepI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $stepI) (i32.const 2)))
            (local.set $st (call $step (i32.load offset={{STARTS}} (local.get $o)) (i32.load offset={{ENDS}} (local.get $o))))
            (br_if $stop (i32.eq (local.get $st) (i32.const -2147483647)))))
        (local.set $s2 (i32.const -1))
        (local.set $e2 (i32.const -1))
        (if (i32.ge_s (global.get $shapesI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $shapesI) (i32.const 2)))
            (local.set $s2 (i32.load offset={{STARTS}} (local.get $o)))
            (local.set $e2 (i32.load offset={{ENDS}} (local.get $o)))))
        (local.set $id
          (call $find
            (i32.load offset={{STARTS}} (i32.shl (global.get $keyLo) (i32.const 2)))
            (i32.load offset={{ENDS}} (i32.shl (global.get $keyHi) (i32.const 2)))
            (local.get $s2) (local.get $e2)))
        (br_if $stop (i32.lt_s (local.get $id) (i32.const 0)))
        (local.set $o (i32.shl (local.get $k) (i32.const 2)))
        (i32.store offset={{IDS}} (local.get $o) (local.get $id))
        (i32.store offset={{STEPS}} (local.get $o) (local.get $st))
        (i32.store offset={{TICKS}} (local.get $o) (i32.wrap_i64 (local.get $d)))
        ;; The start time, when asked for, in ticks after the file's origin (see $start).
        (if (i32.ge_s (global.get $startI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $startI) (i32.const 2)))
            (call $start (i32.load offset={{STARTS}} (local.get $s2)) (i32.load offset={{ENDS}} (local.get $s2)) (local.get $o))))
        ;; The Stream ID, when asked for: a plain integer of at most 9 digits as $step reads it, else -1 (none),
        ;; as parseStreamCell (kernelCells.ts) reads it.
        (if (i32.ge_s (global.get $streamI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $streamI) (i32.const 2)))
            (local.set $e2 (call $step (i32.load offset={{STARTS}} (local.get $s2)) (i32.load offset={{ENDS}} (local.get $s2))))
            (i32.store offset={{STREAMS}} (local.get $o)
              (select (local.get $e2) (i32.const -1) (i32.ge_s (local.get $e2) (i32.const 0))))))
        (local.set $nl (i32.add (local.get $nl) (i32.load (i32.const {{META_LINES}}))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (local.set $p (local.get $r))
        (br $row)))
    (i32.store (i32.const {{BATCH_META_ROWS}}) (local.get $k))
    (i32.store (i32.const {{BATCH_META_LINES}}) (local.get $nl))
    (local.get $p))
