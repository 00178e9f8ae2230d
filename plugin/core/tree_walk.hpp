// tree_walk.hpp - the one depth-first walk of a tree that the families use
// (gridengine's share tree and ticket passes, flux's bank tree), without
// recursion: an account tree may be as deep as it is large (a chain of 10^5
// accounts), and a recursive walk then overflows the thread's stack.
//
// walk_depth_first(root, children, enter, leave) calls, for every node:
//   enter(node&)             before any of its descendants (preorder); may
//                            fill in fields of `node` that leave() reads;
//   children(const node&)    once, right after enter: its children, in order
//                            (anything iterable holding Node values);
//   leave(const node&)       after all its descendants (postorder).
// Siblings are visited in the order children() gives them, as a recursive
// walk would.  Cost: O(nodes) time; memory O(depth) frames, each holding
// the children still to visit of one node on the path.
//
// multifactor builds its tree with its own iterative loop (mf_policy.cpp's
// build_layout), which fuses the walk with the layout it writes.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace mfprio {

template <class Node, class Children, class Enter, class Leave>
void walk_depth_first(Node root, Children&& children, Enter&& enter, Leave&& leave) {
  struct Frame {
    Node node;
    std::vector<Node> kids;
    size_t next;
  };
  auto frame_of = [&](Node n) {
    enter(n);
    const auto& c = children(static_cast<const Node&>(n));
    return Frame{std::move(n), std::vector<Node>(c.begin(), c.end()), 0};
  };
  std::vector<Frame> stack;
  stack.push_back(frame_of(std::move(root)));
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.kids.size()) {
      const Node done = std::move(f.node);
      stack.pop_back();
      leave(done);
      continue;
    }
    Node kid = std::move(f.kids[f.next++]);
    Frame next = frame_of(std::move(kid));  // before push_back: `f` may move
    stack.push_back(std::move(next));
  }
}

// The same without a postorder step.
template <class Node, class Children, class Enter>
void walk_preorder(Node root, Children&& children, Enter&& enter) {
  walk_depth_first(std::move(root), children, enter, [](const Node&) {});
}

}  // namespace mfprio
