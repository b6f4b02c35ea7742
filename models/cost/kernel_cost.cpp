#include "models/cost/kernel_cost.hpp"

namespace ovs {

KernelSpec KernelCost::spec(int stream) const {
  KernelSpec k;
  k.name = name;
  k.stream = stream;
  k.work = work;
  k.fixed_sms = fixed_sms;
  k.sm_cap = sm_cap;
  k.category = category;
  return k;
}

double dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::bf16:
      return 2.0;
    case Dtype::fp8:
      return 1.0;
    case Dtype::fp4:
      return 0.5;
  }
  return 2.0;
}

}  // namespace ovs
