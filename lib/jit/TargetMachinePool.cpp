//===- TargetMachinePool.cpp - Target machines kept between compiles ------===//

#include "TargetMachinePool.h"

using namespace graphjit;
using namespace llvm;

Expected<std::unique_ptr<TargetMachine>> TargetMachinePool::take() {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    if (!Spare.empty()) {
      std::unique_ptr<TargetMachine> TM = std::move(Spare.back());
      Spare.pop_back();
      return TM;
    }
  }
  auto TM = Builder.createTargetMachine();
  if (!TM)
    return TM.takeError();
  std::lock_guard<std::mutex> Guard(Lock);
  if (Made++ == 0) {
    Level = (*TM)->getOptLevel();
    FastISel = (*TM)->Options.EnableFastISel;
  }
  return std::move(*TM);
}

void TargetMachinePool::give(std::unique_ptr<TargetMachine> TM) {
  if (!TM)
    return;
  std::lock_guard<std::mutex> Guard(Lock);
  TM->setOptLevel(Level);
  TM->setFastISel(FastISel);
  Spare.push_back(std::move(TM));
}

Expected<TargetMachinePool::Lease> TargetMachinePool::lease() {
  Expected<std::unique_ptr<TargetMachine>> TM = take();
  if (!TM)
    return TM.takeError();
  return Lease(*this, std::move(*TM));
}

unsigned TargetMachinePool::made() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return Made;
}
