

a,b
TIMELINE