// client-go's leader election cases on the pure state machine, with a fake clock and an
// in-memory lease that enforces the resourceVersion precondition like the API server.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "kube/leader/lease_election.hpp"

namespace kueuepp::kube::leader {
namespace {

using namespace std::chrono_literals;
using Kind = ElectionAction::Kind;

/// Both clocks, moved together by the test.
struct FakeClock {
  LocalTime local = LocalTime{} + 1h;
  client::TimePoint wall = client::TimePoint{} + std::chrono::hours(24 * 365 * 54);
  Instant now() const { return Instant{local, wall}; }
  void advance(std::chrono::milliseconds d) {
    local += d;
    wall += d;
  }
};

/// One Lease as the API server keeps it: writes with a stale resourceVersion fail.
struct FakeLease {
  std::optional<ObservedLease> stored;
  int next_rv = 1;

  /// The answer to `action` (a write), or the failure.
  std::optional<ObservedLease> apply(const ElectionAction& action, WriteFailure* failure) {
    const bool create = action.kind == Kind::Create;
    if (create ? stored.has_value() : (!stored || stored->resource_version != action.resource_version)) {
      *failure = WriteFailure::Conflict;
      return std::nullopt;
    }
    stored = ObservedLease{action.record, std::to_string(next_rv++)};
    return stored;
  }
};

const ElectionTiming kTiming{15000ms, 10000ms, 2000ms};

/// One replica driving its election against the fake lease.
struct Replica {
  Replica(std::string id, FakeClock& c, FakeLease& l, bool wanted = true)
      : election(std::move(id), kTiming, wanted), clock(c), lease(l) {}

  /// tick -> Get -> what the election decides on the answer.
  ElectionAction read() {
    EXPECT_EQ(election.tick(clock.now()).kind, Kind::Get);
    return election.observed(lease.stored, clock.now());
  }
  /// Carries out a write action at once; returns the follow-up action.
  ElectionAction answer(const ElectionAction& action) {
    WriteFailure failure = WriteFailure::Other;
    auto written = lease.apply(action, &failure);
    if (!written) return election.write_failed(failure, clock.now());
    return election.write_succeeded(*written, clock.local, clock.now());
  }
  /// One retry period's work: read, and carry out the write it leads to.
  void round() {
    ElectionAction next = read();
    while (next.is_write()) next = answer(next);
  }

  LeaseElection election;
  FakeClock& clock;
  FakeLease& lease;
};

ObservedLease held_by(std::string holder, std::string rv, std::int64_t transitions = 0) {
  ObservedLease l;
  l.record.holder_identity = std::move(holder);
  l.record.lease_duration_seconds = 15;
  l.record.lease_transitions = transitions;
  l.resource_version = std::move(rv);
  return l;
}

// -- what a candidate does with what it reads ----------------------------------------------

struct Sighting {
  std::chrono::milliseconds at;
  std::optional<ObservedLease> lease;
};

struct DecisionRow {
  const char* name;
  std::vector<Sighting> seen;  ///< reads, in order; the decision on the last one is checked
  bool wanted;
  Kind expect;
  std::int64_t expect_transitions = 0;
  std::string expect_precondition;
};

TEST(LeaseElection, DecidesOnWhatItReads) {
  const DecisionRow rows[] = {
      {"missing: create it", {{0ms, std::nullopt}}, true, Kind::Create, 0, ""},
      {"missing, not wanted: leave it", {{0ms, std::nullopt}}, false, Kind::None},
      {"held, first seen now: back off", {{0ms, held_by("b", "5")}}, true, Kind::None},
      {"held, unchanged for less than the lease duration: back off",
       {{0ms, held_by("b", "5")}, {14999ms, held_by("b", "5")}},
       true,
       Kind::None},
      {"held, unchanged for the lease duration: take over",
       {{0ms, held_by("b", "5", 2)}, {15000ms, held_by("b", "5", 2)}},
       true,
       Kind::Update,
       3,
       "5"},
      {"held, renewed in between: back off",
       {{0ms, held_by("b", "5")}, {10000ms, held_by("b", "6", 1)}, {20000ms, held_by("b", "6", 1)}},
       true,
       Kind::None},
      {"released (holder empty): take it at once", {{0ms, held_by("", "7", 4)}}, true, Kind::Update, 5, "7"},
      {"expired but not wanted: leave it",
       {{0ms, held_by("b", "5")}, {15000ms, held_by("b", "5")}},
       false,
       Kind::None},
  };
  for (const DecisionRow& row : rows) {
    FakeClock clock;
    const LocalTime start = clock.local;
    LeaseElection e("a", kTiming, row.wanted);
    ElectionAction last;
    for (const Sighting& s : row.seen) {
      clock.local = start + s.at;
      ASSERT_EQ(e.tick(clock.now()).kind, Kind::Get) << row.name;
      last = e.observed(s.lease, clock.now());
    }
    EXPECT_EQ(last.kind, row.expect) << row.name;
    if (last.kind == Kind::Create || last.kind == Kind::Update) {
      EXPECT_EQ(last.record.holder_identity, "a") << row.name;
      EXPECT_EQ(last.record.lease_duration_seconds, 15) << row.name;
      EXPECT_EQ(last.record.lease_transitions, row.expect_transitions) << row.name;
      EXPECT_EQ(last.resource_version, row.expect_precondition) << row.name;
      EXPECT_EQ(last.record.acquire_time, clock.wall) << row.name;
    }
    EXPECT_FALSE(e.leading(clock.local)) << row.name;  // nothing succeeded yet
  }
}

// -- sequences -------------------------------------------------------------------------

TEST(LeaseElection, CreatesAMissingLeaseAndLeads) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  ASSERT_TRUE(lease.stored);
  EXPECT_EQ(lease.stored->record.holder_identity, "a");
  EXPECT_TRUE(a.election.leading(clock.local));
  EXPECT_EQ(a.election.leading_until(), clock.local + 10s);
}

TEST(LeaseElection, RenewsKeepingAcquireTimeAndTransitions) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  const auto acquired = lease.stored->record.acquire_time;
  clock.advance(2s);
  ElectionAction renew = a.read();
  ASSERT_EQ(renew.kind, Kind::Update);
  EXPECT_EQ(renew.resource_version, "1");
  EXPECT_EQ(renew.record.acquire_time, acquired);
  EXPECT_EQ(renew.record.renew_time, clock.wall);
  EXPECT_EQ(renew.record.lease_transitions, 0);
  a.answer(renew);
  EXPECT_EQ(a.election.leading_until(), clock.local + 10s);
}

TEST(LeaseElection, BacksOffWhileTheHolderRenewsAndTakesOverAfterExpiry) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  Replica b("b", clock, lease);
  a.round();
  for (int i = 0; i < 10; ++i) {  // a renews every 2 s; b never gets it
    clock.advance(2s);
    a.round();
    b.round();
    EXPECT_EQ(lease.stored->record.holder_identity, "a");
    EXPECT_FALSE(b.election.leading(clock.local));
  }
  // a stops renewing (crashed). b takes over 15 s after it last saw a change, not before.
  b.round();  // b's last sighting of a's last renewal is now
  const LocalTime last_change = clock.local;
  while (clock.local < last_change + 14s) {
    clock.advance(2s);
    b.round();
    EXPECT_EQ(lease.stored->record.holder_identity, "a");
  }
  clock.advance(2s);
  b.round();
  EXPECT_EQ(lease.stored->record.holder_identity, "b");
  EXPECT_EQ(lease.stored->record.lease_transitions, 1);
  EXPECT_TRUE(b.election.leading(clock.local));
}

TEST(LeaseElection, TheLoserOfARaceDoesNotLead) {
  FakeClock clock;
  FakeLease lease;
  lease.stored = held_by("c", "1");
  lease.next_rv = 2;
  Replica a("a", clock, lease);
  Replica b("b", clock, lease);
  a.read();
  b.read();
  clock.advance(15s);
  ElectionAction a_takes = a.read();
  ElectionAction b_takes = b.read();
  ASSERT_EQ(a_takes.kind, Kind::Update);
  ASSERT_EQ(b_takes.kind, Kind::Update);
  EXPECT_EQ(a_takes.resource_version, b_takes.resource_version);  // both decided on rv 1
  a.answer(a_takes);
  b.answer(b_takes);  // 409: a won
  EXPECT_TRUE(a.election.leading(clock.local));
  EXPECT_FALSE(b.election.leading(clock.local));
  EXPECT_FALSE(b.election.busy());
  // b reads the winner's record: a fresh holder, so it backs off.
  clock.advance(2s);
  EXPECT_EQ(b.read().kind, Kind::None);
}

TEST(LeaseElection, CreateRacesAreLostWith409Too) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  Replica b("b", clock, lease);
  ElectionAction a_creates = a.read();
  ElectionAction b_creates = b.read();
  ASSERT_EQ(b_creates.kind, Kind::Create);
  a.answer(a_creates);
  b.answer(b_creates);
  EXPECT_TRUE(a.election.leading(clock.local));
  EXPECT_FALSE(b.election.leading(clock.local));
}

TEST(LeaseElection, LeadingEndsAtTheRenewDeadlineEvenIfARequestHangs) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  const LocalTime last_success = clock.local;
  clock.advance(2s);
  ElectionAction renew = a.read();
  ASSERT_EQ(renew.kind, Kind::Update);  // sent; its answer never comes
  EXPECT_TRUE(a.election.busy());
  clock.local = last_success + 9999ms;
  EXPECT_TRUE(a.election.leading(clock.local));
  clock.local = last_success + 10s;
  EXPECT_FALSE(a.election.leading(clock.local));
  EXPECT_EQ(a.election.tick(clock.now()).kind, Kind::None);  // one request at a time
  // The request finally times out; the next round renews and leads again.
  a.election.write_failed(WriteFailure::Other, clock.now());
  a.round();
  EXPECT_TRUE(a.election.leading(clock.local));
}

TEST(LeaseElection, TheDeadlineCountsFromWhenTheRenewalWasSent) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  clock.advance(2s);
  ElectionAction renew = a.read();
  const LocalTime sent = clock.local;
  WriteFailure failure = WriteFailure::Other;
  auto written = lease.apply(renew, &failure);
  ASSERT_TRUE(written);
  clock.advance(3s);  // a slow answer
  a.election.write_succeeded(*written, sent, clock.now());
  EXPECT_EQ(a.election.leading_until(), sent + 10s);
}

TEST(LeaseElection, ReadingAnotherHolderEndsLeadingAtOnce) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  lease.stored = held_by("b", "99", 1);  // e.g. after this process was paused for a long time
  clock.advance(2s);
  EXPECT_EQ(a.read().kind, Kind::None);
  EXPECT_FALSE(a.election.leading(clock.local));
  EXPECT_FALSE(a.election.leading_until());
}

TEST(LeaseElection, ReleaseClearsTheHolderOnlyWhenAsked) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  clock.advance(1s);
  ElectionAction release = a.election.set_wanted(false, clock.now());
  EXPECT_FALSE(a.election.leading(clock.local));  // stops at once, before the write
  ASSERT_EQ(release.kind, Kind::Release);
  EXPECT_EQ(release.record.holder_identity, "");
  EXPECT_EQ(release.record.lease_duration_seconds, 1);
  EXPECT_EQ(release.record.lease_transitions, 0);
  EXPECT_EQ(release.resource_version, "1");
  a.answer(release);
  EXPECT_EQ(lease.stored->record.holder_identity, "");
  EXPECT_FALSE(a.election.release_pending());
  // Not wanted: it stays away from the free lease.
  clock.advance(2s);
  EXPECT_EQ(a.read().kind, Kind::None);
}

TEST(LeaseElection, ReleaseWaitsForTheRequestInFlight) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  a.round();
  clock.advance(2s);
  ElectionAction renew = a.read();
  EXPECT_EQ(a.election.set_wanted(false, clock.now()).kind, Kind::None);
  EXPECT_TRUE(a.election.release_pending());
  ElectionAction then = a.answer(renew);
  EXPECT_EQ(then.kind, Kind::Release);
  EXPECT_EQ(then.resource_version, "2");
  a.answer(then);
  EXPECT_EQ(lease.stored->record.holder_identity, "");
}

TEST(LeaseElection, AnAcquisitionThatLandsAfterItWasNoLongerWantedIsGivenBack) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  ElectionAction create = a.read();
  ASSERT_EQ(create.kind, Kind::Create);
  EXPECT_EQ(a.election.set_wanted(false, clock.now()).kind, Kind::None);  // in flight
  ElectionAction then = a.answer(create);
  EXPECT_FALSE(a.election.leading(clock.local));
  ASSERT_EQ(then.kind, Kind::Release);
  a.answer(then);
  EXPECT_EQ(lease.stored->record.holder_identity, "");
}

TEST(LeaseElection, AReleasedLeaseIsTakenAtOnceAndTransitionsCount) {
  FakeClock clock;
  FakeLease lease;
  Replica a("a", clock, lease);
  Replica b("b", clock, lease);
  a.round();  // created: 0 transitions
  b.round();  // b sees a's fresh record
  EXPECT_EQ(lease.stored->record.lease_transitions, 0);
  a.answer(a.election.set_wanted(false, clock.now()));
  clock.advance(2s);
  b.round();  // released: no need to wait for expiry
  EXPECT_EQ(lease.stored->record.holder_identity, "b");
  EXPECT_EQ(lease.stored->record.lease_transitions, 1);
  // b crashes; a wants the lease again and takes it once b's record expired.
  // Wanting it again, a acts on its last read (its own release): a stale decision that
  // loses with 409.
  ElectionAction stale = a.election.set_wanted(true, clock.now());
  ASSERT_EQ(stale.kind, Kind::Update);
  a.answer(stale);
  EXPECT_EQ(lease.stored->record.holder_identity, "b");
  a.round();
  clock.advance(15s);
  a.round();
  EXPECT_EQ(lease.stored->record.holder_identity, "a");
  EXPECT_EQ(lease.stored->record.lease_transitions, 2);
  // Renewals are not transitions.
  for (int i = 0; i < 3; ++i) {
    clock.advance(2s);
    a.round();
  }
  EXPECT_EQ(lease.stored->record.lease_transitions, 2);
}

TEST(LeaseElection, AFailedReadDecidesNothing) {
  FakeClock clock;
  LeaseElection e("a", kTiming);
  ASSERT_EQ(e.tick(clock.now()).kind, Kind::Get);
  EXPECT_TRUE(e.busy());
  EXPECT_EQ(e.read_failed(clock.now()).kind, Kind::None);
  EXPECT_FALSE(e.busy());
  EXPECT_FALSE(e.observation().known());
}

}  // namespace
}  // namespace kueuepp::kube::leader
