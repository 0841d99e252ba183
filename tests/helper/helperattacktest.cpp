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
    sd_bus_message *call = newCall(bus, "Trace");
    sd_bus_message_append(call, "uu", uint32_t(child), uint32_t(20));
    Outcome started = send(bus, call);
    sd_bus_message_unref(call);
    const std::string job = jobPathOf(started);
    check(!job.empty(), "Trace returned no job: " + started.error + ": " + started.message);
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
    sd_bus_message *call = newCall(bus, "ReadResidency");
    sd_bus_message_open_container(call, 'a', "ay");
    sd_bus_message_append_array(call, 'y', path, strlen(path));
    sd_bus_message_close_container(call);
    sd_bus_message_append(call, "u", uint32_t(8));
    Outcome started = send(bus, call);
    sd_bus_message_unref(call);
    const std::string job = jobPathOf(started);
    check(!job.empty(), "ReadResidency returned no job: " + started.error + ": " + started.message);
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
    say("unknown role " + role);
    return 2;
}
