// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Waits until a top-level window with the given name is mapped on $DISPLAY
// and prints the wall-clock time of that moment in milliseconds since the
// epoch. tools/bench/window starts it before the application, so that the
// difference to the application's start is the time to the first paint.
//
//   window-mapped NAME TIMEOUT_MS
//
// Exit status: 0 found, 1 timed out, 2 usage or no display.

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long nowMs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int hasName(Display *display, Window window, const char *name)
{
    char *windowName = NULL;
    int matches = 0;
    if (XFetchName(display, window, &windowName) && windowName) {
        matches = strcmp(windowName, name) == 0;
        XFree(windowName);
    }
    return matches;
}

static int viewableWithName(Display *display, Window window, const char *name)
{
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, window, &attributes) || attributes.map_state != IsViewable) {
        return 0;
    }
    return hasName(display, window, name);
}

// Silences errors about windows that vanished between listing and asking.
static int ignoreErrors(Display *display, XErrorEvent *error)
{
    (void)display;
    (void)error;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NAME TIMEOUT_MS\n", argv[0]);
        return 2;
    }
    const char *name = argv[1];
    const long long deadline = nowMs() + atoll(argv[2]);
    Display *display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "%s: cannot open the display\n", argv[0]);
        return 2;
    }
    XSetErrorHandler(ignoreErrors);
    const Window root = DefaultRootWindow(display);
    // Subscribe first, then look at what is already there: nothing slips
    // between the two.
    XSelectInput(display, root, SubstructureNotifyMask);
    XSync(display, False);

    Window rootReturn, parent, *children = NULL;
    unsigned int count = 0;
    if (XQueryTree(display, root, &rootReturn, &parent, &children, &count)) {
        for (unsigned int i = 0; i < count; ++i) {
            if (viewableWithName(display, children[i], name)) {
                printf("%lld\n", nowMs());
                return 0;
            }
        }
        XFree(children);
    }

    struct pollfd pfd = {.fd = ConnectionNumber(display), .events = POLLIN};
    while (nowMs() < deadline) {
        while (XPending(display)) {
            XEvent event;
            XNextEvent(display, &event);
            if (event.type == MapNotify && hasName(display, event.xmap.window, name)) {
                printf("%lld\n", nowMs());
                return 0;
            }
        }
        poll(&pfd, 1, (int)(deadline - nowMs() > 0 ? deadline - nowMs() : 0));
    }
    return 1;
}
