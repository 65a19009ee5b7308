  ;; The kernel table's decoder of record runs, spliced into simd.wat by scripts/wasm.mjs (so these are fields of
  ;; that module, calling its $record, and the cell parsers $ticks, $start and $step of kernelCells.wat);
  ;; kernelBatch.ts configures it and reads its batches. Kernel-table concepts live here and in formats/, not in csv/.
  ;;
  ;; 1. rows(p, end), after configure(), calls record() on each record from p while it is a plain kernel row: as
  ;;    many cells as the header, a duration that $ticks reads as a plain decimal (exactly as parseTicks does, in
  ;;    integer ticks of 1e-4 µs, below 2^31), a Step Id that $step reads as a plain integer or empty, and a group
  ;;    key (the raw bytes of the key cells, and of the shapes cell) already in the key table. Per row it writes the
  ;;    key's id, the step, the ticks and, when configured, the start time in exact ticks after the file's origin
  ;;    ($startOf, or $start: the first time read is the origin, unless the reader set it first) and the Stream ID
  ;;    ($step's plain integer, else -1: none). It stops at the first other record or
  ;;    after MAX_BATCH rows; the JavaScript reader reads that record the slow way (and gives a new key its id with
  ;;    keyId()). So every number a batch holds is what the JavaScript parsers give.
  ;; 2. The key table is open addressing over KEY_SLOTS slots (linear probing; a slot holds entry + 1, 0: empty).
  ;;    The hash ($spanHash) takes the first and last 32 bytes of a span in four loads and four multiplies side by
  ;;    side (the middle of a longer span sixteen bytes at a time) and folds the high bits down; an entry keeps the
  ;;    hash, the two span lengths and where its bytes are in the arena, so a lookup compares hash and lengths
  ;;    before bytes. rows() looks a key of one span up itself (hash, the first slot probed, 64 bytes compared at
  ;;    once), and any other way by $find. Full (MAX_KEYS keys or ARENA_LIMIT bytes), keyId() says -1 and the
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


  ;; Hashing without a branch on the length up to 64 bytes: the first and the last 32 bytes of span [$s, $e) (four
  ;; loads, the bytes outside it masked off, so that a span hashes alike wherever it is), two words multiplied
  ;; together four times side by side, with the length; past 64 bytes the middle sixteen at a time too (every byte
  ;; counts: spans that differ only in the middle do not all collide). $h: the hash so far, then with the span.
  ;; A collision costs only a comparison ($same). Spans may be read 32 bytes before and 64 after.
  ;; @inline $spanHash $h $s $e
  (local.set $hLen (i32.sub (local.get $e) (local.get $s)))
  (local.set $hM (i8x16.splat (select (local.get $hLen) (i32.const 64) (i32.lt_u (local.get $hLen) (i32.const 64)))))
  (local.set $hA (v128.and (v128.load align=1 (local.get $s))
    (i8x16.lt_u (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15) (local.get $hM))))
  (local.set $hB (v128.and (v128.load offset=16 align=1 (local.get $s))
    (i8x16.lt_u (v128.const i8x16 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31) (local.get $hM))))
  (local.set $hC (v128.and (v128.load align=1 (i32.sub (local.get $e) (i32.const 32)))
    (i8x16.le_u (v128.const i8x16 32 31 30 29 28 27 26 25 24 23 22 21 20 19 18 17) (local.get $hM))))
  (local.set $hD (v128.and (v128.load align=1 (i32.sub (local.get $e) (i32.const 16)))
    (i8x16.le_u (v128.const i8x16 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1) (local.get $hM))))
  (local.set $h (i64.add
    (i64.add
      (i64.mul (i64.xor (i64x2.extract_lane 0 (local.get $hA)) (local.get $h)) (i64.xor (i64x2.extract_lane 1 (local.get $hA)) (i64.const 0x9E3779B97F4A7C15)))
      (i64.mul (i64.xor (i64x2.extract_lane 0 (local.get $hB)) (i64.const 0xC2B2AE3D27D4EB4F)) (i64.xor (i64x2.extract_lane 1 (local.get $hB)) (i64.const 0x165667B19E3779F9))))
    (i64.add
      (i64.mul (i64.xor (i64x2.extract_lane 0 (local.get $hC)) (i64.const 0x27D4EB2F165667C5)) (i64.xor (i64x2.extract_lane 1 (local.get $hC)) (i64.const 0x85EBCA77C2B2AE63)))
      (i64.mul (i64.xor (i64x2.extract_lane 0 (local.get $hD)) (i64.const 0x6A09E667F3BCC908)) (i64.xor (i64x2.extract_lane 1 (local.get $hD)) (i64.const 0xBB67AE8584CAA73B))))))
  (if (i32.gt_u (local.get $hLen) (i32.const 64))
    (then
      ;; The middle [s + 32, e - 32), sixteen bytes at a time, those past it masked off.
      (local.set $hP (i32.add (local.get $s) (i32.const 32)))
      (local.set $hG (local.get $h))
      (loop $middle
        (local.set $hA (v128.and (v128.load align=1 (local.get $hP))
          (i8x16.lt_u (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
            (i8x16.splat (select (i32.sub (i32.sub (local.get $e) (i32.const 32)) (local.get $hP)) (i32.const 16)
              (i32.lt_u (i32.sub (i32.sub (local.get $e) (i32.const 32)) (local.get $hP)) (i32.const 16)))))))
        (local.set $hG (i64.mul (i64.xor (local.get $hG) (i64x2.extract_lane 0 (local.get $hA))) (i64.const 0x9E3779B97F4A7C15)))
        (local.set $hG (i64.mul (i64.xor (local.get $hG) (i64x2.extract_lane 1 (local.get $hA))) (i64.const 0xC2B2AE3D27D4EB4F)))
        (local.set $hP (i32.add (local.get $hP) (i32.const 16)))
        (br_if $middle (i32.lt_u (local.get $hP) (i32.sub (local.get $e) (i32.const 32)))))
      (local.set $h (i64.xor (local.get $h) (i64.rotl (local.get $hG) (i64.const 29))))))
  (local.set $h (i64.add (local.get $h) (i64.mul (i64.extend_i32_u (local.get $hLen)) (i64.const 0x9E3779B97F4A7C15))))
  ;; @end

  ;; $r: the slot hash of $h, its high bits folded into the low ones, which pick the slot.
  ;; @inline $fold $h $r
  (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
  (local.set $h (i64.mul (local.get $h) (i64.const 0xBF58476D1CE4E5B9)))
  (local.set $r (i32.wrap_i64 (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32)))))
  ;; @end

  ;; $r: are the first $len bytes at $a and at $b the same, up to 64 of them (four loads a side, the lanes past $len
  ;; masked off; both may be read 64 bytes on)? The rest, if any, by $same.
  ;; @inline $same64 $a $b $len $r
  (local.set $hM (i8x16.splat (select (local.get $len) (i32.const 64) (i32.lt_u (local.get $len) (i32.const 64)))))
  (local.set $r (i32.eqz (v128.any_true (v128.or
    (v128.or
      (v128.and (v128.xor (v128.load align=1 (local.get $a)) (v128.load align=1 (local.get $b)))
        (i8x16.lt_u (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15) (local.get $hM)))
      (v128.and (v128.xor (v128.load offset=16 align=1 (local.get $a)) (v128.load offset=16 align=1 (local.get $b)))
        (i8x16.lt_u (v128.const i8x16 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31) (local.get $hM))))
    (v128.or
      (v128.and (v128.xor (v128.load offset=32 align=1 (local.get $a)) (v128.load offset=32 align=1 (local.get $b)))
        (i8x16.lt_u (v128.const i8x16 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47) (local.get $hM)))
      (v128.and (v128.xor (v128.load offset=48 align=1 (local.get $a)) (v128.load offset=48 align=1 (local.get $b)))
        (i8x16.lt_u (v128.const i8x16 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63) (local.get $hM))))))))
  (if (i32.and (local.get $r) (i32.gt_u (local.get $len) (i32.const 64)))
    (then
      (local.set $r (call $same (i32.add (local.get $a) (i32.const 64)) (i32.add (local.get $b) (i32.const 64))
        (i32.sub (local.get $len) (i32.const 64))))))
  ;; @end

  (func $hashSpan (param $h i64) (param $s i32) (param $e i32) (result i64)
    (local $hLen i32) (local $hM v128) (local $hA v128) (local $hB v128) (local $hC v128) (local $hD v128) (local $hP i32) (local $hG i64)
    {{$spanHash $h $s $e}}
    (local.get $h))

  (func $hash (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $h i64) (local $r i32)
    (local.set $h (call $hashSpan (i64.const 0x243F6A8885A308D3) (local.get $s1) (local.get $e1)))
    (if (i32.ge_s (local.get $s2) (i32.const 0))
      (then (local.set $h (call $hashSpan (i64.xor (local.get $h) (i64.const 0x1e)) (local.get $s2) (local.get $e2)))))
    {{$fold $h $r}}
    (local.get $r))

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
    (local $o i32) (local $cs i32) (local $ce i32) (local $len i32) (local $x i64)
    (local $n i32) (local $f i32) (local $y i32) (local $q i32)
    (local $v v128) (local $h i32) (local $ek i32) (local $ok i32) (local $c i32) (local $us f64)
    (local $hLen i32) (local $hM v128) (local $hA v128) (local $hB v128) (local $hC v128) (local $hD v128) (local $hP i32) (local $hG i64)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $k) (i32.const {{MAX_BATCH}})))
        (br_if $stop (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $r (call $record (local.get $p) (local.get $end) (global.get $locate)))
        (br_if $stop (i32.lt_s (local.get $r) (i32.const 0)))
        (br_if $stop (i32.ne (i32.load (i32.const {{META_CELLS}})) (global.get $width)))
        (local.set $o (i32.shl (global.get $durI) (i32.const 2)))
        (local.set $cs (i32.load offset={{STARTS}} (local.get $o)))
        (local.set $ce (i32.load offset={{ENDS}} (local.get $o)))
        (local.set $d (call $ticks (local.get $cs) (local.get $ce)))
        (br_if $stop (i64.lt_s (local.get $d) (i64.const 0)))
        ;; Ticks past 2^31 - 1 (a kernel of over 214 ms) go the slow way: a batch holds them as i32.
        (br_if $stop (i64.gt_s (local.get $d) (i64.const 2147483647)))
        (local.set $st (i32.const -2147483648))
        (if (i32.ge_s (global.get $stepI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $stepI) (i32.const 2)))
            (local.set $cs (i32.load offset={{STARTS}} (local.get $o)))
            (local.set $ce (i32.load offset={{ENDS}} (local.get $o)))
            {{$stepOf $cs $ce $st}}
            (br_if $stop (i32.eq (local.get $st) (i32.const -2147483647)))))
        (local.set $s2 (i32.const -1))
        (local.set $e2 (i32.const -1))
        (if (i32.ge_s (global.get $shapesI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $shapesI) (i32.const 2)))
            (local.set $s2 (i32.load offset={{STARTS}} (local.get $o)))
            (local.set $e2 (i32.load offset={{ENDS}} (local.get $o)))))
        (local.set $cs (i32.load offset={{STARTS}} (i32.shl (global.get $keyLo) (i32.const 2))))
        (local.set $ce (i32.load offset={{ENDS}} (i32.shl (global.get $keyHi) (i32.const 2))))
        (if (i32.lt_s (local.get $s2) (i32.const 0))
          (then
            ;; A key of one span: hashed and compared with the entry of the first slot probed here; any other by $find.
            (local.set $x (i64.const 0x243F6A8885A308D3))
            {{$spanHash $x $cs $ce}}
            {{$fold $x $h}}
            (local.set $id (i32.load offset={{SLOTS}} (i32.shl (i32.and (local.get $h) (i32.const {{SLOT_MASK}})) (i32.const 2))))
            (local.set $ek (i32.shl (select (i32.sub (local.get $id) (i32.const 1)) (i32.const 0) (local.get $id)) (i32.const 2)))
            (local.set $len (i32.sub (local.get $ce) (local.get $cs)))
            (local.set $ok (i32.const 0))
            (if (i32.and (i32.and (i32.ne (local.get $id) (i32.const 0)) (i32.eq (i32.load offset={{HASHES}} (local.get $ek)) (local.get $h)))
                  (i32.and (i32.eq (i32.load offset={{LEN1}} (local.get $ek)) (local.get $len)) (i32.eq (i32.load offset={{LEN2}} (local.get $ek)) (i32.const -1))))
              (then
                (local.set $ek (i32.add (i32.load offset={{OFFSETS}} (local.get $ek)) (i32.const {{ARENA}})))
                {{$same64 $ek $cs $len $ok}}))
            (local.set $id (if (result i32) (local.get $ok)
              (then (i32.sub (local.get $id) (i32.const 1)))
              (else (call $find (local.get $cs) (local.get $ce) (i32.const -1) (i32.const -1))))))
          (else (local.set $id (call $find (local.get $cs) (local.get $ce) (local.get $s2) (local.get $e2)))))
        (br_if $stop (i32.lt_s (local.get $id) (i32.const 0)))
        (local.set $o (i32.shl (local.get $k) (i32.const 2)))
        (i32.store offset={{IDS}} (local.get $o) (local.get $id))
        (i32.store offset={{STEPS}} (local.get $o) (local.get $st))
        (i32.store offset={{TICKS}} (local.get $o) (i32.wrap_i64 (local.get $d)))
        ;; The start time, when asked for, in ticks after the file's origin (see $start).
        (if (i32.ge_s (global.get $startI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $startI) (i32.const 2)))
            (local.set $cs (i32.load offset={{STARTS}} (local.get $s2)))
            (local.set $ce (i32.load offset={{ENDS}} (local.get $s2)))
            {{$startOf $cs $ce $o}}))
        ;; The Stream ID, when asked for: a plain integer of at most 9 digits as $step reads it, else -1 (none),
        ;; as parseStreamCell (kernelCells.ts) reads it.
        (if (i32.ge_s (global.get $streamI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $streamI) (i32.const 2)))
            (local.set $cs (i32.load offset={{STARTS}} (local.get $s2)))
            (local.set $ce (i32.load offset={{ENDS}} (local.get $s2)))
            {{$stepOf $cs $ce $e2}}
            (i32.store offset={{STREAMS}} (local.get $o)
              (select (local.get $e2) (i32.const -1) (i32.ge_s (local.get $e2) (i32.const 0))))))
        (local.set $nl (i32.add (local.get $nl) (i32.load (i32.const {{META_LINES}}))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (local.set $p (local.get $r))
        (br $row)))
    (i32.store (i32.const {{BATCH_META_ROWS}}) (local.get $k))
    (i32.store (i32.const {{BATCH_META_LINES}}) (local.get $nl))
    (local.get $p))
