# Opcode histogram of each cubin's main loop (the longest backward branch),
# from cuobjdump -sass on the device: python3 run56-sass-hist.py *.cubin
import collections, re, subprocess, sys
for f in sys.argv[1:]:
    text = subprocess.run(['cuobjdump', '-sass', f], capture_output=True, text=True).stdout
    ins = []
    for line in text.split('\n'):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2)))
    best = (0, 0, 0)
    for addr, s in ins:
        m = re.search(r'\bBRA\b.*?(0x[0-9a-f]+)', s)
        if m:
            tgt = int(m.group(1), 16)
            if tgt < addr and addr - tgt > best[0]:
                best = (addr - tgt, tgt, addr)
    c = collections.Counter()
    for addr, s in ins:
        if best[1] <= addr <= best[2]:
            op = s.split()[0] if not s.startswith('@') else s.split()[1]
            c[op.split('.')[0]] += 1
    print(f, 'loop instrs', sum(c.values()), c.most_common(24))
