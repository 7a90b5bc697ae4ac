//go:build !wrappers && !v1beta1

package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	addonsv1beta1 "sigs.k8s.io/cluster-api/api/addons/v1beta1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1alpha1 "sigs.k8s.io/cluster-api/api/ipam/v1alpha1"
	ipamv1beta1 "sigs.k8s.io/cluster-api/api/ipam/v1beta1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	runtimev1alpha1 "sigs.k8s.io/cluster-api/api/runtime/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	bootstrapadmission "sigs.k8s.io/cluster-api/bootstrap/kubeadm/webhooks/admission"
	controlplaneadmission "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/admission"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	ctrl "sigs.k8s.io/controller-runtime"
)

// apiTypes are the API groups the three controllers' main.go add to their
// schemes (the union of the three).
var apiTypes = []func(*runtime.Scheme) error{
	clusterv1beta1.AddToScheme, clusterv1.AddToScheme,
	addonsv1beta1.AddToScheme, addonsv1.AddToScheme,
	runtimev1alpha1.AddToScheme, runtimev1.AddToScheme,
	ipamv1alpha1.AddToScheme, ipamv1beta1.AddToScheme, ipamv1.AddToScheme,
	controlplanev1beta1.AddToScheme, controlplanev1.AddToScheme,
	bootstrapv1beta1.AddToScheme, bootstrapv1.AddToScheme,
}

// setupWebhooks registers the webhooks of the core's, the kubeadm control
// plane's and the kubeadm bootstrap provider's setupWebhooks, in their
// order, with what each gives them (the core's Cluster gets no cluster
// cache: only its update validation reads workload clusters), from the
// packages of v1.14 on (core/webhooks/admission, ...).
func setupWebhooks(mgr ctrl.Manager) error {
	hooks := []struct {
		name  string
		setup interface{ SetupWebhookWithManager(ctrl.Manager) error }
	}{
		{"ClusterClass", &coreadmission.ClusterClass{Client: mgr.GetClient()}},
		{"Cluster", &coreadmission.Cluster{Client: mgr.GetClient()}},
		{"Machine", &coreadmission.Machine{}},
		{"MachineSet", &coreadmission.MachineSet{}},
		{"MachineDeployment", &coreadmission.MachineDeployment{}},
		{"MachineDrainRule", &coreadmission.MachineDrainRule{}},
		{"MachinePool", &coreadmission.MachinePool{}},
		{"ClusterResourceSet", &coreadmission.ClusterResourceSet{}},
		{"ClusterResourceSetBinding", &coreadmission.ClusterResourceSetBinding{}},
		{"MachineHealthCheck", &coreadmission.MachineHealthCheck{}},
		{"ExtensionConfig", &coreadmission.ExtensionConfig{}},
		{"IPAddress", &coreadmission.IPAddress{Client: mgr.GetAPIReader()}},
		{"IPAddressClaim", &coreadmission.IPAddressClaim{}},
		{"KubeadmControlPlane", &controlplaneadmission.KubeadmControlPlane{}},
		{"KubeadmControlPlane scale", &controlplaneadmission.ScaleValidator{Client: mgr.GetClient()}},
		{"KubeadmControlPlaneTemplate", &controlplaneadmission.KubeadmControlPlaneTemplate{}},
		{"KubeadmConfig", &bootstrapadmission.KubeadmConfig{}},
		{"KubeadmConfigTemplate", &bootstrapadmission.KubeadmConfigTemplate{}},
	}
	for _, h := range hooks {
		if err := h.setup.SetupWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("webhook %s: %v", h.name, err)
		}
	}
	return nil
}
