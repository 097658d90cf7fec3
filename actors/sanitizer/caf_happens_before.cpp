// ThreadSanitizer builds only (-DKUEUEPP_SANITIZE=thread): the happens-before edges CAF
// makes inside libcaf_core.
//
// Debian's libcaf_core (0.17.6) is not instrumented, so TSan does not see the atomics
// with which it hands a message from its sender to the thread that runs the receiver, an
// actor from the thread that spawned it to its first worker, or an object to the thread
// that drops the last reference to it; every message read on the receiving side then
// looks like a race with its construction. These definitions replace CAF's exported
// entry points for those hand-offs (the executable's definitions take precedence over the
// shared library's): each says to TSan what CAF's atomics do, and then calls CAF's own
// function (found with dlsym(RTLD_NEXT)), or, for the reference counts, counts with an
// instrumented atomic exactly as libcaf_core 0.17.6 does. Nothing else is suppressed, so a
// race between actors and other threads (Asio's, a test's) in our code is still reported.

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <caf/actor_control_block.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/ref_counted.hpp>
#include <caf/scheduled_actor.hpp>

namespace {

/// CAF's own definition of `mangled`, the one this file replaces.
void* caf_original(const char* mangled) {
  void* f = dlsym(RTLD_NEXT, mangled);
  if (f == nullptr) {
    std::fprintf(stderr, "caf_happens_before: %s not found in libcaf_core (a CAF other than 0.17.6?)\n", mangled);
    std::abort();
  }
  return f;
}

template <class Fn>
Fn original(const char* mangled) {
  return reinterpret_cast<Fn>(caf_original(mangled));
}

/// Runs one step of `actor` (its initialization, or one message) after its earlier steps,
/// and makes the step visible to the next: CAF runs an actor's steps one at a time, on
/// whichever worker is free. Only the actor's own steps (and its launch) release on it.
template <class Step>
auto run_serialized(void* actor, Step step) {
  __tsan_acquire(actor);
  auto result = step();
  __tsan_release(actor);
  return result;
}

/// Runs the step of `actor` that handles `message`, after what its sender did before
/// sending it (and nothing its senders did later: each message is its own edge).
template <class Step>
auto run_message(void* actor, caf::mailbox_element& message, Step step) {
  __tsan_acquire(&message);
  return run_serialized(actor, step);
}

}  // namespace

namespace caf {

// A message: its sender releases on the mailbox element, the thread that runs the
// receiver acquires it before handling it (run_message). The sender also releases on the
// mailbox, which only the actor's termination acquires (it destroys what is left there).
void scheduled_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using Fn = void (*)(scheduled_actor*, mailbox_element_ptr, execution_unit*);
  static const Fn fn = original<Fn>(
      "_ZN3caf15scheduled_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  if (ptr) __tsan_release(ptr.get());
  __tsan_release(&mailbox());
  fn(this, std::move(ptr), eu);
}

// CAF takes each message of a scheduled actor's mailbox through its mailbox visitor
// (system messages, such as an exit, are handled there), and runs one through one of
// three entry points (the first of a resume, the next ones, or one consumed outside of
// the mailbox's order).
intrusive::task_result scheduled_actor::mailbox_visitor::operator()(mailbox_element& x) {
  using Fn = intrusive::task_result (*)(mailbox_visitor*, mailbox_element&);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor15mailbox_visitorclERNS_15mailbox_elementE");
  return run_message(self, x, [&] { return fn(this, x); });
}

invoke_message_result scheduled_actor::consume(mailbox_element& x) {
  using Fn = invoke_message_result (*)(scheduled_actor*, mailbox_element&);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor7consumeERNS_15mailbox_elementE");
  return run_message(this, x, [&] { return fn(this, x); });
}

scheduled_actor::activation_result scheduled_actor::activate(execution_unit* ctx, mailbox_element& x) {
  using Fn = activation_result (*)(scheduled_actor*, execution_unit*, mailbox_element&);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor8activateEPNS_14execution_unitERNS_15mailbox_elementE");
  return run_message(this, x, [&] { return fn(this, ctx, x); });
}

scheduled_actor::activation_result scheduled_actor::reactivate(mailbox_element& x) {
  using Fn = activation_result (*)(scheduled_actor*, mailbox_element&);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor10reactivateERNS_15mailbox_elementE");
  return run_message(this, x, [&] { return fn(this, x); });
}

// Its termination, which destroys what is left in its mailbox: after everything its
// senders did, as a message would be.
bool scheduled_actor::cleanup(error&& fail_state, execution_unit* host) {
  using Fn = bool (*)(scheduled_actor*, error&&, execution_unit*);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor7cleanupEONS_5errorEPNS_14execution_unitE");
  __tsan_acquire(&mailbox());
  return run_serialized(this, [&] { return fn(this, std::move(fail_state), host); });
}

// A blocking actor (a scoped_actor of a test or of a command) the same way: its senders
// release on each mailbox element, and it acquires each as it moves what arrived into
// its queue (fetch_more, as CAF 0.17.6's header defines it, with the acquires added).
void blocking_actor::enqueue(mailbox_element_ptr ptr, execution_unit* eu) {
  using Fn = void (*)(blocking_actor*, mailbox_element_ptr, execution_unit*);
  static const Fn fn = original<Fn>(
      "_ZN3caf14blocking_actor7enqueueESt10unique_ptrINS_15mailbox_elementENS_6detail8disposerEEPNS_14execution_unitE");
  if (ptr) __tsan_release(ptr.get());
  fn(this, std::move(ptr), eu);
}

template <>
bool intrusive::fifo_inbox<blocking_actor::mailbox_policy>::fetch_more() {
  node_pointer head = inbox_.take_head();
  if (head == nullptr) return false;
  do {
    __tsan_acquire(lifo_inbox_type::promote(head));
    auto next = head->next;
    queue_.lifo_append(lifo_inbox_type::promote(head));
    head = next;
  } while (head != nullptr);
  queue_.stop_lifo_append();
  return true;
}

// An actor: the thread that spawned it releases when it launches it, the worker that
// first runs it acquires before initializing it.
void scheduled_actor::launch(execution_unit* eu, bool lazy, bool hide) {
  using Fn = void (*)(scheduled_actor*, execution_unit*, bool, bool);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor6launchEPNS_14execution_unitEbb");
  __tsan_release(this);
  fn(this, eu, lazy, hide);
}

bool scheduled_actor::activate(execution_unit* ctx) {
  using Fn = bool (*)(scheduled_actor*, execution_unit*);
  static const Fn fn = original<Fn>("_ZN3caf15scheduled_actor8activateEPNS_14execution_unitE");
  return run_serialized(this, [&] { return fn(this, ctx); });
}

// Reference counts, as libcaf_core 0.17.6 counts them, with atomics TSan sees: the thread
// that drops the last reference destroys the object after everything the others did.
void ref_counted::deref() const noexcept {
  if (unique()) {
    request_deletion(false);
    return;
  }
  if (rc_.fetch_sub(1, std::memory_order_acq_rel) == 1) request_deletion(true);
}

void intrusive_ptr_release_weak(actor_control_block* x) {
  if (x->weak_refs == 1 || x->weak_refs.fetch_sub(1, std::memory_order_acq_rel) == 1) x->block_dtor(x);
}

void intrusive_ptr_release(actor_control_block* x) {
  if (x->strong_refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    x->data_dtor(x->get());
    intrusive_ptr_release_weak(x);
  }
}

}  // namespace caf
