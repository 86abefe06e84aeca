# Tabulates run 106: python3 ab.py DIR (DIR holds old-f2-{1,2}.txt and new-f2-{1,2}.txt).
import json,sys,statistics
D=sys.argv[1]
def rows(f):
    out={}
    for l in open(f):
        if l.startswith('TQ-JSON'):
            r=json.loads(l[8:]); out[(r['preset'],r['B'],r['seq_len'],r['heads'])]=r
    return out
o=[rows(f"{D}/old-f2-{i}.txt") for i in (1,2)]
n=[rows(f"{D}/new-f2-{i}.txt") for i in (1,2)]
print("| shape (B x seq, HEADS) | old splits, stage 2 | new splits, stage 2 | old ms (2 runs) | new ms (2 runs) | new / old | new GB/s |")
print("|---|---|---|---|---|---|---|")
for k in o[0]:
    a=[x[k]['ms'] for x in o]; b=[x[k]['ms'] for x in n]
    r=statistics.mean(b)/statistics.mean(a)
    s2=lambda x: 's16' if x['stage2_build'].endswith('s16') else 'loop'
    mark='' if (o[0][k]['splits'],s2(o[0][k]))!=(n[0][k]['splits'],s2(n[0][k])) else ' (same)'
    print(f"| {k[0]} {k[1]}x{k[2]}, {k[3]} | {o[0][k]['splits']}, {s2(o[0][k])} | {n[0][k]['splits']}, {s2(n[0][k])}{mark} | {a[0]*1e3:.1f}, {a[1]*1e3:.1f} | {b[0]*1e3:.1f}, {b[1]*1e3:.1f} | {r:.3f} | {n[0][k]['GBps']:.0f} |")
