import re,sys,collections
f,a,b=sys.argv[1],int(sys.argv[2],16),int(sys.argv[3],16)
c=collections.Counter()
for line in open(f):
    m=re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?);',line)
    if not m: continue
    addr=int(m.group(1),16)
    if a<=addr<=b:
        ins=re.sub(r'^@!?P\w+\s+','',m.group(2).strip())
        c[ins.split()[0]]+=1
for k,v in c.most_common(45): print(f"{v:5d} {k}")
print(sum(c.values()),"total")
