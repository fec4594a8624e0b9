# left over from a build of an older checkout
