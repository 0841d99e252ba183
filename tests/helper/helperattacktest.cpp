// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper as an attacker meets it (docs/helper-security.md): a local
// user who does not use Cachescope's client, sends any message with any
// descriptor attached and calls any method at any time. One role a run;
// tests/helper/helper-fixture.sh starts the roles as the users it needs,
// side by side, on its private system bus with polkitd and decides from
// their exit status and output. Written against sd-bus, not the client,
// so that nothing of the client's care protects the helper here.
//
//   helperattacktest ROLE [ARGS...]     exit 0: held; 1: failed (said why)

#include <systemd/sd-bus.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace
{

constexpr const char *service = "org.kde.cachescope.Helper1";
constexpr const char *objectPath = "/org/kde/cachescope/Helper1";
constexpr const char *helperInterface = "org.kde.cachescope.Helper1";
constexpr const char *jobInterface = "org.kde.cachescope.Job1";

int failures = 0;

void say(const std::string &text)
{
    fprintf(stderr, "helperattacktest: %s\n", text.c_str());
}

void check(bool condition, const std::string &what)
{
    if (!condition) {
        ++failures;
        say("FAILED: " + what);
    }
}

double millisecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

sd_bus *openBus()
{
    sd_bus *bus = nullptr;
    const int r = sd_bus_open_system(&bus);
    if (r < 0) {
        say(std::string("cannot connect to the system bus: ") + strerror(-r));
        exit(1);
    }
    return bus;
}

std::string uniqueNameOf(sd_bus *bus, const char *name)
{
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = nullptr;
    const char *owner = nullptr;
    std::string result;
    if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", &error, &reply, "s", name) >= 0
        && sd_bus_message_read(reply, "s", &owner) >= 0) {
        result = owner;
    }
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    return result;
}

// Starts the helper (D-Bus activation) and returns its unique name.
std::string activatedHelper(sd_bus *bus)
{
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_call_method(bus, service, objectPath, "org.freedesktop.DBus.Peer", "Ping", &error, nullptr, "");
    sd_bus_error_free(&error);
    return uniqueNameOf(bus, service);
}

// A method call's outcome: the error's name (empty on success) and who sent
// the answer (the helper's unique name, or org.freedesktop.DBus when the bus
// refused the call itself).
struct Outcome {
    std::string error;
    std::string message;
    std::string sender;
    sd_bus_message *reply = nullptr;
    Outcome() = default;
    Outcome(const Outcome &) = delete;
    Outcome &operator=(const Outcome &) = delete;
    Outcome(Outcome &&other) noexcept
        : error(std::move(other.error))
        , message(std::move(other.message))
        , sender(std::move(other.sender))
        , reply(std::exchange(other.reply, nullptr))
    {
    }
    ~Outcome()
    {
        sd_bus_message_unref(reply);
    }
};

// Sends `call` and waits for its answer, without sd-bus's own error
// translation, so that the answer's sender is known.
Outcome send(sd_bus *bus, sd_bus_message *call, uint64_t timeoutUsec = 30'000'000)
{
    Outcome outcome;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    const int r = sd_bus_call(bus, call, timeoutUsec, &error, &outcome.reply);
    if (r < 0) {
        outcome.error = error.name ? error.name : "errno";
        outcome.message = error.message ? error.message : strerror(-r);
    }
    sd_bus_error_free(&error);
    return outcome;
}

sd_bus_message *newCall(sd_bus *bus, const char *member, const char *interface = helperInterface, const char *path = objectPath)
{
    sd_bus_message *call = nullptr;
    sd_bus_message_new_method_call(bus, &call, service, path, interface, member);
    return call;
}

// The Job1 signals this connection receives, by the job's path.
struct JobSignals {
    std::map<std::string, std::vector<std::string>> members; // path -> members in order
    std::set<std::string> senders;
    std::map<std::string, std::function<void(sd_bus_message *)>> onSignal; // member -> reader
};

int recordJobSignal(sd_bus_message *message, void *userdata, sd_bus_error *)
{
    auto *signals = static_cast<JobSignals *>(userdata);
    const char *member = sd_bus_message_get_member(message);
    const char *path = sd_bus_message_get_path(message);
    const char *sender = sd_bus_message_get_sender(message);
    signals->members[path ? path : ""].push_back(member ? member : "");
    signals->senders.insert(sender ? sender : "");
    if (const auto reader = signals->onSignal.find(member ? member : ""); reader != signals->onSignal.end()) {
        reader->second(message);
    }
    return 0;
}

void watchJobs(sd_bus *bus, JobSignals *signals)
{
    // No sender in the match: unicast signals reach us anyway; the test
    // checks who sent them.
    sd_bus_match_signal(bus, nullptr, nullptr, nullptr, jobInterface, nullptr, recordJobSignal, signals);
}

// Processes the connection until done() or the time is up.
bool waitFor(sd_bus *bus, const std::function<bool()> &done, int seconds)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
        if (std::chrono::steady_clock::now() > end) {
            return false;
        }
        const int r = sd_bus_process(bus, nullptr);
        if (r < 0) {
            return false;
        }
        if (r == 0) {
            sd_bus_wait(bus, 100'000);
        }
    }
    return true;
}

std::string jobPathOf(const Outcome &outcome)
{
    const char *path = nullptr;
    if (!outcome.reply || sd_bus_message_read(outcome.reply, "o", &path) < 0) {
        return {};
    }
    return path;
}

// Starts a job and returns its path; empty (and a failure said) when the
// helper answered anything else.
std::string startJob(sd_bus *bus, sd_bus_message *call, const char *method)
{
    Outcome started = send(bus, call);
    sd_bus_message_unref(call);
    const std::string job = jobPathOf(started);
    check(!job.empty(), std::string(method) + " returned no job: " + started.error + ": " + started.message);
    return job;
}

std::string startTrace(sd_bus *bus, pid_t pid, uint32_t seconds)
{
    sd_bus_message *call = newCall(bus, "Trace");
    sd_bus_message_append(call, "uu", uint32_t(pid), seconds);
    return startJob(bus, call, "Trace");
}

// The residency of one path, in 8 buckets.
std::string startResidencyRead(sd_bus *bus, const char *path)
{
    sd_bus_message *call = newCall(bus, "ReadResidency");
    sd_bus_message_open_container(call, 'a', "ay");
    sd_bus_message_append_array(call, 'y', path, strlen(path));
    sd_bus_message_close_container(call);
    sd_bus_message_append(call, "u", uint32_t(8));
    return startJob(bus, call, "ReadResidency");
}

// --- Roles ---------------------------------------------------------------------------

// A refused user attaches a descriptor of the FUSE flush trap to calls and
// to a signal addressed to the helper, for `seconds`. Every message with a
// descriptor must be refused by the bus itself: none reaches the helper.
int attackWithDescriptor(const char *trapPath, int seconds, const char *readyFile)
{
    sd_bus *bus = openBus();
    const std::string helper = activatedHelper(bus);
    check(!helper.empty(), "the helper could be started");
    const int fd = open(trapPath, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(std::string("cannot open the flush trap ") + trapPath + ": " + strerror(errno));
        return 1;
    }
    int rounds = 0;
    std::set<std::string> refusals;
    const auto start = std::chrono::steady_clock::now();
    while (millisecondsSince(start) < seconds * 1000.0) {
        // A method it has, with the descriptor as an extra argument.
        sd_bus_message *call = newCall(bus, "DropCaches");
        sd_bus_message_append(call, "uh", uint32_t(1), fd);
        Outcome dropped = send(bus, call, 5'000'000);
        sd_bus_message_unref(call);
        // A method it does not have (KAuth's helper was stuck by this one).
        call = newCall(bus, "Introspect", "org.freedesktop.DBus.Introspectable");
        sd_bus_message_append(call, "h", fd);
        Outcome introspected = send(bus, call, 5'000'000);
        sd_bus_message_unref(call);
        for (const Outcome *outcome : {&dropped, &introspected}) {
            refusals.insert(outcome->error);
            check(!outcome->error.empty(), "a message carrying a descriptor was answered with success");
            // The helper never answers: it never received the message.
            check(outcome->error.rfind("org.kde.cachescope", 0) != 0 && outcome->error != "org.freedesktop.DBus.Error.InvalidArgs"
                      && outcome->error != "org.freedesktop.DBus.Error.UnknownMethod",
                  "the helper itself answered a message carrying a descriptor (" + outcome->error + ": " + outcome->message + ")");
        }
        // A signal addressed to the helper's connection (the system bus lets
        // anyone send unicast signals).
        sd_bus_message *signal = nullptr;
        sd_bus_message_new_signal_to(bus, &signal, helper.c_str(), "/attack", "org.example.Attack", "Poke");
        sd_bus_message_append(signal, "h", fd);
        sd_bus_send(bus, signal, nullptr);
        sd_bus_message_unref(signal);
        sd_bus_flush(bus);
        if (++rounds == 1) {
            std::ofstream(readyFile) << "ready\n";
        }
        usleep(100'000);
    }
    std::string names;
    for (const std::string &name : refusals) {
        names += " " + name;
    }
    say("sent " + std::to_string(rounds) + " rounds of descriptor-carrying messages; the bus answered:" + names);
    close(fd);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// The allowed user's drop-caches is answered within `limitMs`.
int dropCachesWithin(int limitMs)
{
    sd_bus *bus = openBus();
    sd_bus_message *call = newCall(bus, "DropCaches");
    sd_bus_message_append(call, "u", uint32_t(1));
    const auto start = std::chrono::steady_clock::now();
    Outcome outcome = send(bus, call, 60'000'000);
    const double took = millisecondsSince(start);
    sd_bus_message_unref(call);
    check(outcome.error.empty(), "drop-caches failed: " + outcome.error + ": " + outcome.message);
    check(took < limitMs, "drop-caches took " + std::to_string(int(took)) + " ms, more than " + std::to_string(limitMs));
    say("drop-caches answered in " + std::to_string(int(took)) + " ms");
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// Traces a child of its own that reads `file` (evicted first); writes the
// job's path to jobFile for the attacker; the trace must finish with its
// events however often others call Cancel.
int traceOwnChild(const char *file, const char *jobFile)
{
    struct stat st{};
    const int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        say(std::string("cannot open ") + file);
        return 1;
    }
    // Written just now (a copy): clean first, or the eviction keeps it.
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    int go[2];
    if (pipe(go) != 0) {
        return 1;
    }
    const pid_t child = fork();
    if (child == 0) {
        close(go[1]);
        char byte;
        if (read(go[0], &byte, 1) != 1) {
            _exit(2);
        }
        const int in = open(file, O_RDONLY);
        char buffer[65536];
        while (in >= 0 && read(in, buffer, sizeof buffer) > 0) { }
        _exit(0);
    }
    close(go[0]);

    sd_bus *bus = openBus();
    JobSignals signals;
    std::string endReason;
    uint64_t eventsOfFile = 0;
    uint64_t events = 0;
    signals.onSignal["TraceCompleted"] = [&](sd_bus_message *message) {
        if (sd_bus_message_enter_container(message, 'a', "(ytiuuttttus)") < 0) {
            return;
        }
        uint8_t kind = 0;
        uint64_t time = 0, inode = 0, first = 0, count = 0, sector = 0;
        int32_t pid = 0;
        uint32_t major = 0, minor = 0, bytes = 0;
        const char *rwbs = nullptr;
        while (sd_bus_message_read(message, "(ytiuuttttus)", &kind, &time, &pid, &major, &minor, &inode, &first, &count, &sector, &bytes, &rwbs) > 0) {
            ++events;
            eventsOfFile += (kind == 0 && inode == st.st_ino) ? 1 : 0;
        }
        sd_bus_message_exit_container(message);
        uint64_t lost = 0;
        int usage = 0, block = 0;
        const char *reason = nullptr;
        if (sd_bus_message_read(message, "tbbs", &lost, &usage, &block, &reason) >= 0) {
            endReason = reason;
        }
    };
    watchJobs(bus, &signals);
    const std::string job = startTrace(bus, child, 20);
    if (job.empty()) {
        kill(child, SIGKILL);
        return 1;
    }
    std::ofstream(jobFile) << job << "\n";
    chmod(jobFile, 0644);
    check(waitFor(
              bus,
              [&] {
                  return !signals.members[job].empty();
              },
              20),
          "no Tracing signal within 20 s");
    // Time for the attacker's Cancel calls (every 50 ms) before the work.
    waitFor(
        bus,
        [] {
            return false;
        },
        2);
    if (write(go[1], "g", 1) != 1) {
        return 1;
    }
    close(go[1]);
    waitpid(child, nullptr, 0);
    check(waitFor(
              bus,
              [&] {
                  return !endReason.empty() || (signals.members[job].size() > 1 && signals.members[job].back() == "Failed");
              },
              30),
          "the trace did not finish within 30 s");
    check(endReason == "exited", "the trace ended \"" + endReason + "\", not \"exited\"");
    check(eventsOfFile > 0, "the trace has no event of the file read (" + std::to_string(events) + " events)");
    check(signals.members.size() == 1, "signals of other jobs reached this caller");
    const std::string helper = uniqueNameOf(bus, service);
    check(signals.senders == std::set<std::string>{helper}, "a Job1 signal came from someone else than the helper");
    say("traced " + std::to_string(events) + " events, " + std::to_string(eventsOfFile) + " of the file; ended " + endReason);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// Calls Cancel on the job named in jobFile every 50 ms until stopFile
// exists; none may succeed.
int cancelFlood(const char *jobFile, const char *stopFile)
{
    sd_bus *bus = openBus();
    std::string job;
    int calls = 0;
    std::set<std::string> answers;
    const auto start = std::chrono::steady_clock::now();
    while (access(stopFile, F_OK) != 0 && millisecondsSince(start) < 90'000) {
        if (job.empty()) {
            std::ifstream in(jobFile);
            std::getline(in, job);
        }
        if (!job.empty()) {
            sd_bus_message *call = newCall(bus, "Cancel", jobInterface, job.c_str());
            Outcome outcome = send(bus, call, 5'000'000);
            sd_bus_message_unref(call);
            ++calls;
            answers.insert(outcome.error);
            check(!outcome.error.empty(), "another user's Cancel of the job succeeded");
        }
        usleep(50'000);
    }
    check(calls > 10, "only " + std::to_string(calls) + " Cancel calls were made");
    std::string names;
    for (const std::string &name : answers) {
        names += " " + name;
    }
    say(std::to_string(calls) + " Cancel calls on another user's job, answered:" + names);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// Asks for the residency of a file on the FUSE mount that never answers an
// open; the answer comes at the helper's deadline, with the file's error,
// and only this job's signals reach this caller.
int residencyOfHangingFile(const char *path, const char *readyFile)
{
    sd_bus *bus = openBus();
    JobSignals signals;
    std::string fileError = "(none)";
    signals.onSignal["ResidencyCompleted"] = [&](sd_bus_message *message) {
        if (sd_bus_message_enter_container(message, 'a', "(sbtttttsbttat)") >= 0 && sd_bus_message_enter_container(message, 'r', "sbtttttsbttat") >= 0) {
            const char *error = nullptr;
            if (sd_bus_message_read(message, "s", &error) >= 0) {
                fileError = error;
            }
        }
    };
    watchJobs(bus, &signals);
    const std::string job = startResidencyRead(bus, path);
    std::ofstream(readyFile) << job << "\n";
    check(waitFor(
              bus,
              [&] {
                  return !signals.members[job].empty();
              },
              40),
          "no answer for the hanging file within 40 s");
    check(!signals.members[job].empty() && signals.members[job].back() == "ResidencyCompleted", "the job did not complete");
    check(fileError.find("answer") != std::string::npos || fileError.find("deadline") != std::string::npos || fileError.find("time") != std::string::npos,
          "the hanging file's error does not say it did not answer: " + fileError);
    check(signals.members.size() == 1, "signals of another caller's job reached this one");
    say("the hanging file's answer: " + fileError);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// Every method refuses, with nothing changed, each wrong type, a missing or
// extra argument, values out of range or over the limits, another user's
// process, a set-user-ID program, and Cancel of a job that is none of the
// caller's. Run as the allowed user, so that the refusals are the
// helper's checks, not polkit's. Prints how many it tried.
int badInputs(const char *setUidProgram)
{
    sd_bus *bus = openBus();
    const std::string invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs";
    const std::string invalid = "org.kde.cachescope.Helper1.Error.InvalidArgument";
    const std::string notPermitted = "org.kde.cachescope.Helper1.Error.NotPermitted";
    const std::string unknownObject = "org.freedesktop.DBus.Error.UnknownObject";
    const std::string unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod";
    const auto bytes = [](const std::string &text) {
        return [text](sd_bus_message *m) {
            sd_bus_message_append_array(m, 'y', text.data(), text.size());
        };
    };
    const auto paths = [](const std::vector<std::string> &list, uint32_t buckets) {
        return [list, buckets](sd_bus_message *m) {
            sd_bus_message_open_container(m, 'a', "ay");
            for (const std::string &path : list) {
                sd_bus_message_append_array(m, 'y', path.data(), path.size());
            }
            sd_bus_message_close_container(m);
            sd_bus_message_append(m, "u", buckets);
        };
    };
    const std::string longPath = "/" + std::string(5000, 'a');
    const std::string withNul = std::string("/etc\0/passwd", 12);
    std::vector<std::string> seventeen;
    for (int i = 0; i < 17; ++i) {
        seventeen.push_back("/etc/passwd-" + std::to_string(i));
    }
    // A set-user-ID program of the system, held at its password prompt.
    int prompt[2];
    pid_t setUid = -1;
    if (pipe(prompt) == 0) {
        setUid = fork();
        if (setUid == 0) {
            dup2(prompt[0], 0);
            close(prompt[1]);
            const int quiet = open("/dev/null", O_WRONLY);
            dup2(quiet, 1);
            dup2(quiet, 2);
            execl(setUidProgram, setUidProgram, static_cast<char *>(nullptr));
            _exit(127);
        }
        close(prompt[0]);
        usleep(300'000); // its exec done: the kernel made it root's
    }
    const uint32_t self = uint32_t(getpid());

    struct Case {
        std::string name;
        const char *method;
        std::function<void(sd_bus_message *)> append;
        std::string expected;
        const char *interface = helperInterface;
        std::string path = objectPath;
    };
    const auto none = [](sd_bus_message *) { };
    const auto u = [](uint32_t value) {
        return [value](sd_bus_message *m) {
            sd_bus_message_append(m, "u", value);
        };
    };
    const auto t = [](uint64_t value) {
        return [value](sd_bus_message *m) {
            sd_bus_message_append(m, "t", value);
        };
    };
    const auto str = [](const char *value) {
        return [value](sd_bus_message *m) {
            sd_bus_message_append(m, "s", value);
        };
    };
    const auto uu = [](uint32_t a, uint32_t b) {
        return [a, b](sd_bus_message *m) {
            sd_bus_message_append(m, "uu", a, b);
        };
    };
    const auto ut = [](uint32_t a, uint64_t b) {
        return [a, b](sd_bus_message *m) {
            sd_bus_message_append(m, "ut", a, b);
        };
    };
    const std::vector<Case> cases = {
        // Types, missing and extra arguments: sd-bus refuses before any handler.
        {"DropCaches as a string", "DropCaches", str("1"), invalidArgs},
        {"DropCaches as int32",
         "DropCaches",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "i", int32_t(1));
         },
         invalidArgs},
        {"DropCaches without level", "DropCaches", none, invalidArgs},
        {"DropCaches with an extra argument", "DropCaches", uu(1, 1), invalidArgs},
        {"SwapOff as a string", "SwapOff", str("/swapfile"), invalidArgs},
        {"SwapOff without area", "SwapOff", none, invalidArgs},
        {"SwapOffAll with an argument", "SwapOffAll", u(1), invalidArgs},
        {"SwapOn as a number", "SwapOn", u(1), invalidArgs},
        {"SwapOnAll with an argument", "SwapOnAll", str("all"), invalidArgs},
        {"CreateExperimentSwapFile as uint32", "CreateExperimentSwapFile", u(16 << 20), invalidArgs},
        {"CreateExperimentSwapFile without size", "CreateExperimentSwapFile", none, invalidArgs},
        {"RemoveExperimentSwapFile with a path", "RemoveExperimentSwapFile", bytes("/etc/passwd"), invalidArgs},
        {"ReadResidency with strings",
         "ReadResidency",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "asu", 1, "/etc/passwd", uint32_t(8));
         },
         invalidArgs},
        {"ReadResidency without buckets",
         "ReadResidency",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "aay", 0);
         },
         invalidArgs},
        {"ReadResidency with an extra argument",
         "ReadResidency",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "aayuu", 0, uint32_t(8), uint32_t(8));
         },
         invalidArgs},
        {"Trace without seconds", "Trace", u(self), invalidArgs},
        {"Trace with signed numbers",
         "Trace",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "ii", int32_t(1), int32_t(1));
         },
         invalidArgs},
        {"Contain with uint32 limit", "Contain", uu(self, 64 << 20), invalidArgs},
        {"Reclaim as a string", "Reclaim", str("/user.slice"), invalidArgs},
        {"Account with a number", "Account", u(1), invalidArgs},
        {"Account with a path", "Account", bytes("/"), invalidArgs},
        {"Activity without interval", "Activity", u(5), invalidArgs},
        {"Activity with signed numbers",
         "Activity",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "ii", int32_t(5), int32_t(1000));
         },
         invalidArgs},
        {"Activity with an extra argument",
         "Activity",
         [](sd_bus_message *m) {
             sd_bus_message_append(m, "uuu", uint32_t(5), uint32_t(1000), uint32_t(1));
         },
         invalidArgs},
        {"a method it does not have", "RunAsRoot", str("/bin/sh"), unknownMethod},
        // Values the helper's checks refuse.
        {"DropCaches level 0", "DropCaches", u(0), invalid},
        {"DropCaches level 4", "DropCaches", u(4), invalid},
        {"DropCaches level 2^32-1", "DropCaches", u(UINT32_MAX), invalid},
        {"SwapOff of an empty name", "SwapOff", bytes(""), invalid},
        {"SwapOff of a relative name", "SwapOff", bytes("swapfile"), invalid},
        {"SwapOff of a name with NUL", "SwapOff", bytes(withNul), invalid},
        {"SwapOff of a 5000-byte name", "SwapOff", bytes(longPath), invalid},
        {"SwapOff of a file that is no swap area", "SwapOff", bytes("/etc/passwd"), notPermitted},
        {"SwapOn of an area never turned off", "SwapOn", bytes("/etc/passwd"), notPermitted},
        {"CreateExperimentSwapFile of one byte", "CreateExperimentSwapFile", t(1), invalid},
        {"CreateExperimentSwapFile not whole pages", "CreateExperimentSwapFile", t((16ULL << 20) + 1), invalid},
        {"CreateExperimentSwapFile of 2^64-1 bytes", "CreateExperimentSwapFile", t(UINT64_MAX), invalid},
        {"ReadResidency of no path", "ReadResidency", paths({}, 8), invalid},
        {"ReadResidency of 17 paths", "ReadResidency", paths(seventeen, 8), invalid},
        {"ReadResidency of a relative path", "ReadResidency", paths({"etc/passwd"}, 8), invalid},
        {"ReadResidency of a path with NUL", "ReadResidency", paths({withNul}, 8), invalid},
        {"ReadResidency of a 5000-byte path", "ReadResidency", paths({longPath}, 8), invalid},
        {"ReadResidency of the same path twice", "ReadResidency", paths({"/etc/passwd", "/etc/passwd"}, 8), invalid},
        {"ReadResidency with 0 buckets", "ReadResidency", paths({"/etc/passwd"}, 0), invalid},
        {"ReadResidency with 5000 buckets", "ReadResidency", paths({"/etc/passwd"}, 5000), invalid},
        {"Trace of pid 0", "Trace", uu(0, 1), invalid},
        {"Trace for 0 s", "Trace", uu(self, 0), invalid},
        {"Trace for 31 s", "Trace", uu(self, 31), invalid},
        {"Activity for 0 s", "Activity", uu(0, 1000), invalid},
        {"Activity for 3601 s", "Activity", uu(3601, 1000), invalid},
        {"Activity for 2^32-1 s", "Activity", uu(UINT32_MAX, 1000), invalid},
        {"Activity every 199 ms", "Activity", uu(5, 199), invalid},
        {"Activity every 60001 ms", "Activity", uu(5, 60001), invalid},
        {"Trace of a pid past the kernel's", "Trace", uu(4194305, 1), invalid},
        {"Trace of root's process", "Trace", uu(1, 1), notPermitted},
        {"Trace of a set-user-ID program", "Trace", uu(uint32_t(setUid), 1), notPermitted},
        {"Contain of pid 0", "Contain", ut(0, 64ULL << 20), invalid},
        {"Contain with a 1-byte limit", "Contain", ut(self, 1), invalid},
        {"Contain with a 2^64-1 limit", "Contain", ut(self, UINT64_MAX), invalid},
        {"Contain of root's process", "Contain", ut(1, 64ULL << 20), notPermitted},
        {"Contain of a set-user-ID program", "Contain", ut(uint32_t(setUid), 64ULL << 20), notPermitted},
        {"Reclaim of an empty name", "Reclaim", bytes(""), invalid},
        {"Reclaim of a relative name", "Reclaim", bytes("user.slice"), invalid},
        {"Reclaim with ..", "Reclaim", bytes("/user.slice/../system.slice"), invalid},
        {"Reclaim of the root cgroup", "Reclaim", bytes("/"), invalid},
        {"Reclaim of a 5000-byte name", "Reclaim", bytes(longPath), invalid},
        {"Reclaim of a cgroup of root's", "Reclaim", bytes("/system.slice"), notPermitted},
        // Jobs that are none of the caller's.
        {"Cancel of a job that never was", "Cancel", none, unknownObject, jobInterface, std::string(objectPath) + "/job/999999"},
        {"Cancel of a job path with junk", "Cancel", none, unknownObject, jobInterface, std::string(objectPath) + "/job/x"},
        {"Cancel on the service object", "Cancel", none, unknownMethod, jobInterface},
    };
    int refused = 0;
    for (const Case &c : cases) {
        sd_bus_message *call = nullptr;
        sd_bus_message_new_method_call(bus, &call, service, c.path.c_str(), c.interface, c.method);
        c.append(call);
        Outcome outcome = send(bus, call, 30'000'000);
        sd_bus_message_unref(call);
        std::string answer = outcome.error;
        // A job's refusal may come as its Failed signal: none of these start one.
        if (outcome.error.empty()) {
            answer = "success";
        }
        const bool asExpected = answer == c.expected;
        check(asExpected, c.name + ": answered " + answer + " (" + outcome.message + "), expected " + c.expected);
        refused += asExpected ? 1 : 0;
    }
    if (setUid > 0) {
        // Still at its prompt: the refusals were about it, not about a pid gone.
        check(waitpid(setUid, nullptr, WNOHANG) == 0, std::string(setUidProgram) + " ended before the calls were made");
        close(prompt[1]);
        kill(setUid, SIGKILL);
        waitpid(setUid, nullptr, 0);
    }
    printf("%d\n", int(cases.size()));
    say(std::to_string(refused) + " of " + std::to_string(cases.size()) + " bad calls refused as expected");
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// For `seconds`, keeps `count` drop-caches calls under way at all times
// (each answered one replaced at once), writing readyFile after the first
// batch: the allowed user's call meanwhile must not be told the helper is
// busy.
int floodCalls(int count, const char *readyFile, int seconds)
{
    sd_bus *bus = openBus();
    activatedHelper(bus);
    struct Flood {
        sd_bus *bus;
        int underWay = 0;
        int sent = 0;
        int answered = 0;
    } flood{bus};
    const auto sendOne = [](Flood &f) {
        sd_bus_message *call = newCall(f.bus, "DropCaches");
        sd_bus_message_append(call, "u", uint32_t(1));
        const int r = sd_bus_call_async(
            f.bus,
            nullptr,
            call,
            [](sd_bus_message *, void *userdata, sd_bus_error *) {
                auto *f = static_cast<Flood *>(userdata);
                --f->underWay;
                ++f->answered;
                return 0;
            },
            &f,
            60'000'000);
        sd_bus_message_unref(call);
        if (r >= 0) {
            ++f.underWay;
            ++f.sent;
        }
    };
    const auto start = std::chrono::steady_clock::now();
    bool ready = false;
    while (millisecondsSince(start) < seconds * 1000.0) {
        while (flood.underWay < count) {
            sendOne(flood);
        }
        sd_bus_flush(bus);
        if (!ready) {
            std::ofstream(readyFile) << "flooding\n";
            ready = true;
        }
        while (sd_bus_process(bus, nullptr) > 0) { }
        sd_bus_wait(bus, 10'000);
    }
    say("kept " + std::to_string(count) + " calls under way for " + std::to_string(seconds) + " s: " + std::to_string(flood.sent) + " sent, "
        + std::to_string(flood.answered) + " answered");
    sd_bus_flush_close_unref(bus);
    return flood.sent > 0 ? 0 : 1;
}

// Starts a residency read of a file that never answers and leaves the bus
// as soon as it has the job's path (Ctrl+C in the CLI): the helper must
// cancel the job and go on serving others.
int leaveDuringJob(const char *path)
{
    sd_bus *bus = openBus();
    (void)startResidencyRead(bus, path);
    sd_bus_flush_close_unref(bus);
    say("left the bus with its job under way");
    return failures == 0 ? 0 : 1;
}

// A child of its own, held on a pipe until the role ends.
pid_t heldChild()
{
    const pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    return child;
}

// Starts a trace of a held child of its own, writes "tracing" to readyFile
// once the events are being recorded, then waits (the fixture kills the
// helper meanwhile) until the job ends or `seconds` pass.
int holdTrace(const char *readyFile, int seconds)
{
    const pid_t child = heldChild();
    sd_bus *bus = openBus();
    JobSignals signals;
    watchJobs(bus, &signals);
    const std::string job = startTrace(bus, child, 30);
    const bool tracing = !job.empty()
        && waitFor(
            bus,
            [&] {
                return !signals.members[job].empty();
            },
            20);
    check(tracing, "no Tracing signal within 20 s");
    if (tracing) {
        std::ofstream(readyFile) << "tracing\n";
    }
    waitFor(
        bus,
        [&] {
            return signals.members[job].size() > 1;
        },
        seconds);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// Moves a held child of its own into a contained run, writes the cgroup's
// folder to readyFile, waits for stopFile, then ends the child.
int holdContain(const char *readyFile, const char *stopFile)
{
    const pid_t child = heldChild();
    sd_bus *bus = openBus();
    sd_bus_message *call = newCall(bus, "Contain");
    sd_bus_message_append(call, "ut", uint32_t(child), uint64_t(64) << 20);
    Outcome outcome = send(bus, call);
    sd_bus_message_unref(call);
    const void *path = nullptr;
    size_t size = 0;
    uint32_t version = 0;
    if (!outcome.error.empty() || sd_bus_message_read_array(outcome.reply, 'y', &path, &size) < 0 || sd_bus_message_read(outcome.reply, "u", &version) < 0) {
        check(false, "Contain failed: " + outcome.error + ": " + outcome.message);
    } else {
        std::ofstream(readyFile) << std::string(static_cast<const char *>(path), size) << "\n";
    }
    const auto start = std::chrono::steady_clock::now();
    while (access(stopFile, F_OK) != 0 && millisecondsSince(start) < 60'000) {
        usleep(50'000);
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

// docs/helper-security.md rule 15 (idle exit): a Ping to the service every
// 2 ms for `seconds`, while the instance the fixture started with a short
// idle time ends and the bus starts another. Every call is answered, by one
// instance or the next; none is lost in the moment the first one ends.
int callsAcrossExit(int seconds)
{
    sd_bus *bus = openBus();
    const std::string first = uniqueNameOf(bus, service);
    check(!first.empty(), "no helper runs at the start");
    struct Counts {
        int sent = 0;
        int answered = 0;
        std::map<std::string, int> errors;
        std::set<std::string> answeredBy;
    } counts;
    const auto start = std::chrono::steady_clock::now();
    auto next = start;
    while (millisecondsSince(start) < seconds * 1000.0) {
        if (std::chrono::steady_clock::now() >= next) {
            next += std::chrono::milliseconds(2);
            sd_bus_message *call = nullptr;
            if (sd_bus_message_new_method_call(bus, &call, service, objectPath, "org.freedesktop.DBus.Peer", "Ping") >= 0
                && sd_bus_call_async(
                       bus,
                       nullptr,
                       call,
                       [](sd_bus_message *reply, void *userdata, sd_bus_error *) {
                           auto *counts = static_cast<Counts *>(userdata);
                           if (const sd_bus_error *error = sd_bus_message_get_error(reply)) {
                               ++counts->errors[std::string(error->name) + ": " + (error->message ? error->message : "")];
                           } else {
                               ++counts->answered;
                               counts->answeredBy.insert(sd_bus_message_get_sender(reply) ? sd_bus_message_get_sender(reply) : "");
                           }
                           return 0;
                       },
                       &counts,
                       30'000'000)
                    >= 0) {
                ++counts.sent;
            }
            sd_bus_message_unref(call);
        }
        while (sd_bus_process(bus, nullptr) > 0) { }
        sd_bus_wait(bus, 1000);
    }
    // The rest of the answers (an instance being started takes a moment).
    const auto drain = std::chrono::steady_clock::now();
    while (counts.answered +
                   [&] {
                       int n = 0;
                       for (const auto &[name, count] : counts.errors) {
                           n += count;
                       }
                       return n;
                   }()
               < counts.sent
           && millisecondsSince(drain) < 30'000) {
        while (sd_bus_process(bus, nullptr) > 0) { }
        sd_bus_wait(bus, 100'000);
    }
    const std::string last = uniqueNameOf(bus, service);
    say("pings: " + std::to_string(counts.sent) + " sent, " + std::to_string(counts.answered) + " answered by " + std::to_string(counts.answeredBy.size())
        + " instances");
    for (const auto &[error, count] : counts.errors) {
        check(false, std::to_string(count) + " pings answered " + error);
    }
    check(counts.answered == counts.sent, "not every ping was answered");
    check(!last.empty() && last != first, "the first instance did not end during the pings: the test proves nothing");
    check(counts.answeredBy.size() >= 2, "the pings were not answered by two instances: the test proves nothing");
    sd_bus_flush_close_unref(bus);
    return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const std::string role = argc > 1 ? argv[1] : "";
    const auto arg = [&](int index) -> const char * {
        if (index >= argc) {
            say("role " + role + " needs more arguments");
            exit(2);
        }
        return argv[index];
    };
    if (role == "attack-descriptor") {
        return attackWithDescriptor(arg(2), atoi(arg(3)), arg(4));
    }
    if (role == "drop-caches-within") {
        return dropCachesWithin(atoi(arg(2)));
    }
    if (role == "trace-own-child") {
        return traceOwnChild(arg(2), arg(3));
    }
    if (role == "cancel-flood") {
        return cancelFlood(arg(2), arg(3));
    }
    if (role == "residency-of-hanging-file") {
        return residencyOfHangingFile(arg(2), arg(3));
    }
    if (role == "leave-during-job") {
        return leaveDuringJob(arg(2));
    }
    if (role == "flood-calls") {
        return floodCalls(atoi(arg(2)), arg(3), atoi(arg(4)));
    }
    if (role == "hold-trace") {
        return holdTrace(arg(2), atoi(arg(3)));
    }
    if (role == "hold-contain") {
        return holdContain(arg(2), arg(3));
    }
    if (role == "calls-across-exit") {
        return callsAcrossExit(atoi(arg(2)));
    }
    if (role == "bad-inputs") {
        return badInputs(arg(2));
    }
    say("unknown role " + role);
    return 2;
}
