/* Does nothing (used with a second preloaded library whose constructor does I/O). */
int main(void) { return 0; }
