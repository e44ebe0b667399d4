

snap-1-2Zx